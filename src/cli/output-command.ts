/**
 * Commands that print data: the output flags of docs/cli.md, "Global flags" and the Output of the effective format.
 * `--json` (oclif's JSON flag) and `-o json` both make oclif print the command's returned result as
 * pretty JSON; every other format is rendered by the command through `this.output()`.
 */
import { BaseCommand } from './base-command.js'
import { outputFlags } from './flags.js'
import { colorEnabled, Output, renderJson, resolveFormat, type OutputFormat } from './output.js'

/** The parsed output flags. */
export interface OutputFlagValues {
  output?: string
  json?: boolean
  color?: boolean
  quiet: boolean
  'no-headers': boolean
}

export abstract class OutputCommand extends BaseCommand {
  static override enableJsonFlag = true
  static override baseFlags = { ...BaseCommand.baseFlags, ...outputFlags }

  /** The effective format, once `output()` resolved it. */
  private format: OutputFormat | undefined

  /** The Output of the parsed flags (resolves the format: table on a terminal, json when piped). */
  protected output(flags: OutputFlagValues): Output {
    const stdoutIsTTY = process.stdout.isTTY === true
    this.format = resolveFormat({ output: flags.output, json: flags.json, stdoutIsTTY })
    return new Output({
      format: this.format,
      color: colorEnabled(flags.color, process.env, stdoutIsTTY),
      quiet: flags.quiet,
      headers: !flags['no-headers'],
    })
  }

  /** JSON mode: `--json`, `-o json`, or json by default when stdout is piped (after `output()`). */
  override jsonEnabled(): boolean {
    if (this.format !== undefined) return this.format === 'json'
    return this.wantsJson()
  }

  /** Plain pretty JSON (two spaces) on stdout: the same text whether or not stdout is a terminal. */
  override logJson(json: unknown): void {
    process.stdout.write(renderJson(json))
  }
}
