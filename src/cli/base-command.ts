/**
 * The base of every queenctl command: shared flags, and one error renderer printing
 * `queenctl: <message>` plus a `hint:` line on stderr (or `{"error":{...}}` on stdout under --json), then
 * exiting with the error's code.
 */
import { Command, Flags } from '@oclif/core'
import { EXIT, UserError } from './errors.js'

export abstract class BaseCommand extends Command {
  static override baseFlags = {
    debug: Flags.boolean({
      description: 'Print stack traces and an HTTP trace on stderr',
      default: false,
      helpGroup: 'GLOBAL',
    }),
  }

  /** True when the command was asked for JSON output. */
  protected wantsJson(): boolean {
    return (
      this.argv.includes('--json') ||
      this.argv.some((arg, index) => (arg === '-o' || arg === '--output') && this.argv[index + 1] === 'json')
    )
  }

  protected override async catch(error: Error & { exitCode?: number; oclif?: { exit?: number } }): Promise<unknown> {
    // oclif's own exits (help, version, this.exit()) and parse errors keep their behaviour.
    if (error.oclif?.exit !== undefined && !(error instanceof UserError)) return super.catch(error)
    const user = error instanceof UserError ? error : undefined
    const exitCode = user?.exitCode ?? EXIT.server
    if (this.wantsJson()) {
      process.stdout.write(
        `${JSON.stringify({ error: { code: user?.code ?? 'internal_error', message: error.message, hint: user?.hint ?? null } })}\n`,
      )
    } else {
      process.stderr.write(`queenctl: ${error.message}\n`)
      if (user?.hint) process.stderr.write(`hint: ${user.hint}\n`)
      if (!user || this.argv.includes('--debug')) {
        if (this.argv.includes('--debug')) process.stderr.write(`${error.stack ?? ''}\n`)
      }
    }
    process.exitCode = exitCode
    return this.exit(exitCode)
  }
}
