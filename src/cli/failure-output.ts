/**
 * The one error renderer of queenctl (docs/cli.md, "Output formats" and "Exit codes"): `queenctl: <message>` plus a
 * `hint:` line on stderr, or `{"error":{"code","message","hint"}}` on stdout under `-o json`/`--json`. Used by every
 * command (base-command.ts) and by bin/run.js when `serve` without flags, started without oclif, fails.
 */
import { Errors } from '@oclif/core'
import { ConfigError } from '../platform/config/config-error.js'
import { EXIT, UserError } from './errors.js'

export type CommandError = Error & { exitCode?: number; code?: string; oclif?: { exit?: number } }

/** True for oclif's own flag and argument errors (unknown flag, bad option, missing argument). */
function isParseError(error: CommandError): boolean {
  return (
    ('parse' in error && error instanceof Errors.CLIError) ||
    error.message.startsWith('Parsing --') ||
    error.name === 'FailedFlagValidationError'
  )
}

/** A parse error's message without oclif's "See more help" tail; `Parsing --x \n\t<why>` → `--x: <why>`. */
function parseMessage(message: string): string {
  const cleaned = message.replace(/\n?See more help with --help\s*$/, '').trim()
  const flagged = /^Parsing (--\S+)\s*\n\t([\s\S]*)$/.exec(cleaned)
  return flagged ? `${flagged[1]}: ${flagged[2]!.trim()}` : cleaned
}

/** The user-facing form of any error a command threw; undefined for a bug. */
function asUserError(error: CommandError, commandId: string | undefined): UserError | undefined {
  if (error instanceof UserError && !error.message.startsWith('Parsing --')) return error
  if (error instanceof UserError || isParseError(error)) {
    const original = error instanceof UserError ? error : undefined
    return new UserError(parseMessage(error.message), {
      exitCode: EXIT.user,
      code: 'usage_error',
      hint: original?.hint ?? `see queenctl ${commandId ? `${commandId.replaceAll(':', ' ')} ` : ''}--help`,
      cause: error,
    })
  }
  // A configuration problem found while starting (an unreachable QUEEN_DATA_DIR) is the operator's to fix.
  if (error instanceof ConfigError) return new UserError(error.message, { code: 'config_error', cause: error })
  if (error instanceof Errors.CLIError) {
    return new UserError(error.message, { exitCode: error.oclif.exit ?? EXIT.user, cause: error })
  }
  return undefined
}

/** How a failure is printed: the command that failed, JSON output asked for, --debug given. */
export interface FailureOutput {
  commandId: string | undefined
  json: boolean
  debug: boolean
}

/** Prints any error a command threw, as a user error or as a bug; returns the exit code it calls for. */
export function printFailure(error: CommandError, { commandId, json, debug }: FailureOutput): number {
  const user = asUserError(error, commandId)
  const message = user?.message ?? error.message
  if (json) {
    process.stdout.write(
      `${JSON.stringify({ error: { code: user?.code ?? 'internal_error', message, hint: user?.hint ?? null } })}\n`,
    )
  } else {
    process.stderr.write(`queenctl: ${message}\n`)
    if (user?.hint) process.stderr.write(`hint: ${user.hint}\n`)
  }
  if (debug) process.stderr.write(`${error.stack ?? ''}\n`)
  else if (!user) process.stderr.write('hint: this is a bug; run again with --debug for the stack trace\n')
  return user?.exitCode ?? EXIT.server
}
