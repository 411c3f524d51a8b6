import { Args } from '@oclif/core'
import { redactContext } from '../../cli/context-display.js'
import type { ContextEntry } from '../../cli/contexts.js'
import { contextsPath } from '../../cli/contexts.js'
import { loadContextsDocument, useContext, writeContextsDocument } from '../../cli/contexts-writer.js'
import { connectionFlags } from '../../cli/flags.js'
import { OutputCommand } from '../../cli/output-command.js'

export default class ConfigUseContext extends OutputCommand {
  static override summary = 'Make a context the current one'
  static override description =
    'Sets current-context in the contexts file (written atomically, mode 0600, every other key kept). An unknown name exits 1 and lists the known ones.'

  static override examples = [
    '<%= config.bin %> config use-context prod',
    '<%= config.bin %> config use-context local --config ./queen-config.yaml',
  ]

  static override args = { name: Args.string({ description: 'context name', required: true }) }
  static override flags = { config: connectionFlags.config }

  async run(): Promise<ContextEntry> {
    const { args, flags } = await this.parse(ConfigUseContext)
    const out = this.output(flags)
    const doc = await loadContextsDocument(contextsPath(flags.config, process.env))
    const context = redactContext(useContext(doc, args.name))
    await writeContextsDocument(doc)
    out.confirm(`switched to context "${args.name}" in ${doc.file}`)
    out.detail(context, context)
    return context
  }
}
