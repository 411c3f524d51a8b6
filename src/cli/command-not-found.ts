/**
 * oclif's `command_not_found` hook (docs/cli.md, "Exit codes"): an unknown command, or an unknown flag typed before
 * the command (`queenctl --verbose ping`, which oclif takes for a command id), is a usage error, exit 1, printed
 * as every other error is, where oclif would exit 2, the code scripts read as "the broker is unreachable". The Go
 * queenctl exits 1 there too. `queenctl help [command]`, the cobra form, prints that command's help.
 */
import { Errors, loadHelpClass, type Hook } from '@oclif/core'
import { EXIT, UserError } from './errors.js'
import { printFailure } from './failure-output.js'

/** The usage error for a command id oclif could not find (words joined by `:`). */
export function unknownCommand(id: string): UserError {
  if (id.startsWith('-')) {
    return new UserError(`unknown flag: ${id.split(':')[0]!}`, {
      exitCode: EXIT.user,
      code: 'usage_error',
      hint: 'see queenctl --help for the global flags',
    })
  }
  return new UserError(`unknown command "${id.replaceAll(':', ' ')}" for "queenctl"`, {
    exitCode: EXIT.user,
    code: 'usage_error',
    hint: 'see queenctl --help for the commands',
  })
}

/** Whether the command line asks for JSON output (`--json`, `-o json`, `--output=json`, `-ojson`). */
function wantsJson(argv: readonly string[]): boolean {
  return argv.some(
    (token, index) =>
      token === '--json' ||
      token === '--output=json' ||
      token === '-ojson' ||
      ((token === '-o' || token === '--output') && argv[index + 1] === 'json'),
  )
}

const hook: Hook.CommandNotFound = async function (options) {
  const argv = options.argv ?? []
  const words = options.id.split(':')
  if (words[0] === 'help') {
    const Help = await loadHelpClass(this.config)
    await new Help(this.config, this.config.pjson.oclif.helpOptions).showHelp([...words.slice(1), ...argv])
    return
  }
  const code = printFailure(unknownCommand(options.id), { commandId: undefined, json: wantsJson(argv), debug: false })
  throw new Errors.ExitError(code)
}

export default hook
