/**
 * Runs the dashboard on the terminal's alternate screen and resolves when it quits. The normal screen is
 * restored on every way out: `q` or Ctrl-C, SIGTERM/SIGHUP/SIGINT, an exception in a component (rethrown
 * after the restore, so the command prints it), and an uncaught exception anywhere else (printed after
 * the restore, exit 2).
 */
import { render } from 'ink'
import type { TopSource } from '../cli/top/top-source.js'
import type { ViewState } from '../cli/top/view-state.js'
import { TopApp } from './TopApp.js'

/** Switch to the alternate screen and home the cursor. */
const ENTER_ALTERNATE_SCREEN = '\u001b[?1049h\u001b[H'
/** Show the cursor and go back to the normal screen (with the shell's text as it was). */
const LEAVE_ALTERNATE_SCREEN = '\u001b[?25h\u001b[?1049l'

/** Frames per second at most: a dashboard polled every 2 s gains nothing from more. */
const MAX_FPS = 10

export interface RenderTopOptions {
  source: TopSource
  initialView: ViewState
  color: boolean
  stdout?: NodeJS.WriteStream
  stdin?: NodeJS.ReadStream
}

export async function renderTop(options: RenderTopOptions): Promise<void> {
  const stdout = options.stdout ?? process.stdout
  let restored = false
  const restore = () => {
    if (restored) return
    restored = true
    stdout.write(LEAVE_ALTERNATE_SCREEN)
  }
  const crashed = (error: unknown) => {
    restore()
    process.stderr.write(
      `queenctl: top stopped on an unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    )
    process.exit(2)
  }
  stdout.write(ENTER_ALTERNATE_SCREEN)
  process.on('exit', restore)
  process.on('uncaughtException', crashed)
  process.on('unhandledRejection', crashed)
  const instance = render(<TopApp source={options.source} initialView={options.initialView} color={options.color} />, {
    stdout,
    stdin: options.stdin ?? process.stdin,
    exitOnCtrlC: false,
    patchConsole: true,
    maxFps: MAX_FPS,
  })
  const stop = () => instance.unmount()
  const signals = ['SIGTERM', 'SIGHUP', 'SIGINT'] as const
  for (const signal of signals) process.on(signal, stop)
  try {
    await instance.waitUntilExit()
  } finally {
    for (const signal of signals) process.off(signal, stop)
    process.off('uncaughtException', crashed)
    process.off('unhandledRejection', crashed)
    process.off('exit', restore)
    restore()
  }
}
