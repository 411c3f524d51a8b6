import { Flags } from '@oclif/core'
import { redactContextsFile } from '../../cli/context-display.js'
import { contextsPath, loadContextsFile, type ContextsFile } from '../../cli/contexts.js'
import { connectionFlags } from '../../cli/flags.js'
import { OutputCommand } from '../../cli/output-command.js'

export default class ConfigView extends OutputCommand {
  static override summary = 'Print the contexts file'
  static override description =
    'Prints the contexts file (--config, QUEEN_CONFIG, else ~/.queen/config.yaml) as YAML, unknown keys included; a missing file is an empty configuration. Literal tokens in token-ref are shown as literal:<redacted> unless --raw.'

  static override examples = [
    '<%= config.bin %> config view',
    '<%= config.bin %> config view --config ./queen-config.yaml --output json',
    '<%= config.bin %> config view --raw',
  ]

  static override flags = {
    config: connectionFlags.config,
    raw: Flags.boolean({ description: 'show literal tokens instead of literal:<redacted>', default: false }),
  }

  async run(): Promise<ContextsFile> {
    const { flags } = await this.parse(ConfigView)
    const out = this.output(flags)
    const file = await loadContextsFile(contextsPath(flags.config, process.env))
    const shown = flags.raw ? file : redactContextsFile(file)
    out.detail(shown, shown)
    return shown
  }
}
