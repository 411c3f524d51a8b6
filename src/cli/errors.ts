/**
 * The CLI's two kinds of failure (docs/conventions.md, "Errors"): a UserError is expected (bad input, broker
 * unreachable, missing --yes), carries an exit code (docs/cli.md, "Exit codes") and a one-line hint, and prints without
 * a stack; anything else is a bug and prints its stack under --debug.
 */

/** Exit codes of docs/cli.md, "Exit codes". */
export const EXIT = {
  ok: 0,
  user: 1,
  server: 2,
  auth: 3,
  noop: 4,
} as const

const DEFAULT_CODES: Record<number, string> = { 1: 'user_error', 2: 'server_error', 3: 'auth_error', 4: 'noop' }

/** An expected failure with an exit code and an optional hint. */
export class UserError extends Error {
  readonly exitCode: number
  readonly hint: string | undefined
  readonly code: string

  constructor(message: string, options: { exitCode?: number; hint?: string; code?: string; cause?: unknown } = {}) {
    super(message, { cause: options.cause })
    this.name = 'UserError'
    this.exitCode = options.exitCode ?? EXIT.user
    this.hint = options.hint
    this.code = options.code ?? DEFAULT_CODES[this.exitCode] ?? 'user_error'
  }
}
