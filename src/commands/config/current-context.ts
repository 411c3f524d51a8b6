import { EXIT } from '../../cli/errors.js'
import { contextsPath, loadContextsFile } from '../../cli/contexts.js'
import { connectionFlags } from '../../cli/flags.js'
import { OutputCommand } from '../../cli/output-command.js'

export default class ConfigCurrentContext extends OutputCommand {
  static override hiddenAliases = ['config:current']
  static override textOnPipe = true
  static override summary = 'Print the name of the current context'
  static override description =
    'Prints current-context of the contexts file. When none is set it prints nothing and exits 4 (a successful no-op), so scripts can test for it.'

  static override examples = [
    '<%= config.bin %> config current-context',
    '<%= config.bin %> config current-context --config ./queen-config.yaml',
  ]

  static override flags = { config: connectionFlags.config }

  async run(): Promise<{ currentContext: string }> {
    const { flags } = await this.parse(ConfigCurrentContext)
    const out = this.output(flags)
    const file = await loadContextsFile(contextsPath(flags.config, process.env))
    const current = file['current-context']
    if (current === undefined || current === '') this.exit(EXIT.noop)
    if (out.tabular) out.write(`${current}\n`)
    else out.detail({}, { currentContext: current })
    return { currentContext: current }
  }
}
