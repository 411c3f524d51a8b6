/**
 * A one-line progress meter on stderr for long data-plane commands (`push`): redrawn in place at most
 * every 250 ms with the count and the rate, and erased at the end. Only on a terminal: a piped or
 * redirected stderr gets nothing, so logs stay clean.
 */
import { formatCount } from './format.js'

const REDRAW_MS = 250

/** A progress meter; every method is a no-op when it is off. */
export class ProgressLine {
  private readonly write: ((text: string) => void) | undefined
  private readonly noun: string
  private readonly started = Date.now()
  private lastDraw = 0
  private drawn = false

  /** `enabled` is usually `process.stderr.isTTY && !quiet`. */
  constructor(options: { enabled: boolean; noun: string; write?: (text: string) => void }) {
    this.write = options.enabled ? (options.write ?? ((text) => process.stderr.write(text))) : undefined
    this.noun = options.noun
  }

  /** Redraws the line with `done` items so far (throttled). */
  update(done: number): void {
    if (!this.write) return
    const now = Date.now()
    if (now - this.lastDraw < REDRAW_MS) return
    this.lastDraw = now
    const seconds = Math.max((now - this.started) / 1000, 0.001)
    this.write(`\r\x1b[K${formatCount(done)} ${this.noun}, ${formatCount(Math.round(done / seconds))} ${this.noun}/s`)
    this.drawn = true
  }

  /** Erases the line, so the summary that follows starts at the left margin. */
  clear(): void {
    if (this.write && this.drawn) this.write('\r\x1b[K')
    this.drawn = false
  }
}
