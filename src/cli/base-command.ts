/**
 * The base of every queenctl command: shared flags, and errors printed by the one renderer
 * (failure-output.ts), then exiting with the error's code (docs/cli.md, "Output formats" and "Exit codes").
 */
import { Command, Errors, Flags } from '@oclif/core'
import { printFailure, type CommandError } from './failure-output.js'

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
    const exitCode = printFailure(error, { commandId: this.id, json: this.wantsJson(), debug: this.debugEnabled() })
    process.exitCode = exitCode
    return this.exit(exitCode)
  }
}
