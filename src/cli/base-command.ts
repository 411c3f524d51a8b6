/**
 * The base of every queenctl command: shared flags, and one error renderer printing
 * `queenctl: <message>` plus a `hint:` line on stderr (or `{"error":{"code","message","hint"}}` on stdout
 * under `-o json`/`--json`), then exiting with the error's code (cli.md sections 4 and 5).
 */
import { Command, Errors, Flags } from '@oclif/core'
import { ConfigError } from '../broker/config/resolve.js'
import { EXIT, UserError } from './errors.js'

type CommandError = Error & { exitCode?: number; code?: string; oclif?: { exit?: number } }

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

export abstract class BaseCommand extends Command {
  static override baseFlags = {
    debug: Flags.boolean({
      description: 'print stack traces and an HTTP trace (method, URL, status, ms; never tokens) on stderr',
      default: false,
      helpGroup: 'GLOBAL',
    }),
  }

  /** True when the command was asked for JSON output explicitly (`--json`, `-o json`). */
  protected wantsJson(): boolean {
    const argv = this.argv.slice(0, this.argv.includes('--') ? this.argv.indexOf('--') : undefined)
    return argv.some(
      (arg, index) =>
        arg === '--json' ||
        arg === '--output=json' ||
        arg === '-o=json' ||
        arg === '-ojson' ||
        ((arg === '-o' || arg === '--output') && argv[index + 1] === 'json'),
    )
  }

  /** True under --debug (read from argv, so it also works when parsing failed). */
  protected debugEnabled(): boolean {
    return this.argv.includes('--debug')
  }

  protected override catch(error: CommandError): Promise<unknown> {
    // this.exit() (exit 4 for a no-op, or 0) keeps its code and prints nothing.
    if (error instanceof Errors.ExitError) throw error
    const user = asUserError(error, this.id)
    const exitCode = user?.exitCode ?? EXIT.server
    const message = user?.message ?? error.message
    if (this.wantsJson()) {
      process.stdout.write(
        `${JSON.stringify({ error: { code: user?.code ?? 'internal_error', message, hint: user?.hint ?? null } })}\n`,
      )
    } else {
      process.stderr.write(`queenctl: ${message}\n`)
      if (user?.hint) process.stderr.write(`hint: ${user.hint}\n`)
    }
    if (this.debugEnabled()) process.stderr.write(`${error.stack ?? ''}\n`)
    else if (!user) process.stderr.write('hint: this is a bug; run again with --debug for the stack trace\n')
    process.exitCode = exitCode
    return this.exit(exitCode)
  }
}
