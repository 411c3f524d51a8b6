/**
 * Driving `queenctl top` in tests: the key sequences a terminal sends, waiting for a rendered frame that
 * shows something (frames arrive as the broker answers, so tests wait on content, never on time), and the
 * lines of a frame.
 */

/** What a terminal sends for the keys the dashboard reads. */
export const KEYS = {
  tab: '\t',
  shiftTab: '\u001b[Z',
  enter: '\r',
  escape: '\u001b',
  up: '\u001b[A',
  down: '\u001b[B',
  backspace: '\u007f',
  ctrlC: '\u0003',
} as const

/** Resolves with the first frame satisfying `predicate`; rejects after `timeoutMs` with the last frame. */
export async function waitForFrame(
  lastFrame: () => string | undefined,
  predicate: (frame: string) => boolean,
  what: string,
  timeoutMs = 20_000,
): Promise<string> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const frame = lastFrame() ?? ''
    if (predicate(frame)) return frame
    if (Date.now() > deadline) throw new Error(`no frame showing ${what} within ${timeoutMs} ms; last frame:\n${frame}`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

/** The lines of a frame. */
export function frameLines(frame: string): string[] {
  return frame.split('\n')
}

/** The line of a frame that starts (after the selection marker) with `name` followed by a space. */
export function rowOf(frame: string, name: string): string | undefined {
  return frameLines(frame).find((line) => line.slice(2).startsWith(`${name} `))
}

/** The whitespace-separated cells of a table line (after the marker). */
export function cellsOf(line: string | undefined): string[] {
  return (line ?? '').slice(2).trim().split(/\s+/)
}
