import { Args } from '@oclif/core'
import { redactContext } from '../../cli/context-display.js'
import { contextsPath, type ContextEntry } from '../../cli/contexts.js'
import { deleteContext, loadContextsDocument, writeContextsDocument } from '../../cli/contexts-writer.js'
import { connectionFlags } from '../../cli/flags.js'
import { OutputCommand } from '../../cli/output-command.js'

export default class ConfigDeleteContext extends OutputCommand {
  static override aliases = ['config:rm']
  static override summary = 'Remove a context from the contexts file'
  static override description =
    'Removes the context (written atomically, mode 0600, every other key kept). When it was the current context, current-context is removed too. An unknown name exits 1.'

  static override examples = [
    '<%= config.bin %> config delete-context staging',
    '<%= config.bin %> config delete-context staging --config ./queen-config.yaml',
  ]

  static override args = { name: Args.string({ description: 'context name', required: true }) }
  static override flags = { config: connectionFlags.config }

  async run(): Promise<{ deleted: ContextEntry; wasCurrent: boolean }> {
    const { args, flags } = await this.parse(ConfigDeleteContext)
    const out = this.output(flags)
    const doc = await loadContextsDocument(contextsPath(flags.config, process.env))
    const { context, wasCurrent } = deleteContext(doc, args.name)
    await writeContextsDocument(doc)
    out.confirm(`deleted context "${args.name}" from ${doc.file}`)
    if (wasCurrent) out.note(`"${args.name}" was the current context: no context is current now`)
    const result = { deleted: redactContext(context), wasCurrent }
    if (!out.tabular) out.detail({}, result)
    return result
  }
}
