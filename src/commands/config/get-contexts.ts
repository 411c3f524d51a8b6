import { CONTEXT_COLUMNS, contextRows, type ContextRow } from '../../cli/context-display.js'
import { contextsPath, loadContextsFile } from '../../cli/contexts.js'
import { connectionFlags } from '../../cli/flags.js'
import { OutputCommand } from '../../cli/output-command.js'

export default class ConfigGetContexts extends OutputCommand {
  static override aliases = ['config:list', 'config:ls']
  static override summary = 'List the contexts of the contexts file'
  static override description =
    'One row per context: CURRENT (*), NAME, SERVER, TENANT, TOKEN-REF (literal tokens redacted); -o wide adds INSECURE, TENANCY HEADER and DATABASE.'

  static override examples = [
    '<%= config.bin %> config get-contexts',
    '<%= config.bin %> config get-contexts --output wide --config ./queen-config.yaml',
  ]

  static override flags = { config: connectionFlags.config }

  async run(): Promise<ContextRow[]> {
    const { flags } = await this.parse(ConfigGetContexts)
    const out = this.output(flags)
    const rows = contextRows(await loadContextsFile(contextsPath(flags.config, process.env)))
    out.list(rows, CONTEXT_COLUMNS)
    return rows
  }
}
