/**
 * Commands that print data: the output flags of docs/cli.md, "Global flags" and the Output of the effective format.
 * `--json` (oclif's JSON flag) and `-o json` both make oclif print the command's returned result as
 * pretty JSON; every other format is rendered by the command through `this.output()`.
 */
import { BaseCommand } from './base-command.js'
import { outputFlags } from './flags.js'
import {
  colorEnabled,
  evaluateJsonPath,
  Output,
  renderJson,
  renderJsonPath,
  resolveFormat,
  type OutputFormat,
} from './output.js'

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

  /**
   * Commands whose text output is a confirmation the Go queenctl prints on stdout whether or not it is a terminal
   * (`queued=1 duplicate=0 ...`, `ack ok`): they print it under a pipe too, and JSON only with `-o json` or `--json`
   * (docs/cli.md, "Compatibility with the Go queenctl").
   */
  static textOnPipe = false

  /** The effective format, once `output()` resolved it. */
  private format: OutputFormat | undefined

  /** The Output of the parsed flags (resolves the format: table on a terminal, json when piped). */
  protected output(flags: OutputFlagValues): Output {
    const stdoutIsTTY = process.stdout.isTTY === true
    const textOnPipe = (this.constructor as typeof OutputCommand).textOnPipe
    this.format = resolveFormat({ output: flags.output, json: flags.json, stdoutIsTTY: stdoutIsTTY || textOnPipe })
    this.jsonPath = flags.output?.startsWith('jsonpath=') ? flags.output.slice('jsonpath='.length) : undefined
    // Checked before anything is sent, so a bad expression is a usage error of its own.
    if (this.jsonPath !== undefined) evaluateJsonPath({}, this.jsonPath)
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

  /** The expression of `-o jsonpath=EXPR`, once `output()` saw it. */
  private jsonPath: string | undefined

  /**
   * Plain pretty JSON (two spaces) on stdout: the same text whether or not stdout is a terminal; under
   * `-o jsonpath=EXPR` the values the expression picks.
   */
  override logJson(json: unknown): void {
    process.stdout.write(this.jsonPath === undefined ? renderJson(json) : renderJsonPath(json, this.jsonPath))
  }
}
