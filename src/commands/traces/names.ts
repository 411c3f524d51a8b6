import { Flags } from '@oclif/core'
import { HttpCommand } from '../../cli/http-command.js'
import { nextPageNote, TRACE_NAME_COLUMNS, type TraceNameRow } from '../../cli/trace-listing.js'
import type { TraceNamesAnswer } from '../../wire/index.js'

export default class TracesNames extends HttpCommand {
  static override summary = 'List the trace names consumers used, with their event and message counts'
  static override description = 'GET /api/v1/traces/names: NAME, EVENTS, MESSAGES and LAST SEEN, most recent first.'

  static override examples = [
    '<%= config.bin %> traces names',
    '<%= config.bin %> traces names --limit 20 --offset 20 --output json',
  ]

  static override flags = {
    limit: Flags.integer({ description: 'names per page (1-1000)', default: 50, min: 1, max: 1000 }),
    offset: Flags.integer({ description: 'names to skip', default: 0, min: 0 }),
  }

  async run(): Promise<TraceNameRow[]> {
    const { flags } = await this.parse(TracesNames)
    const out = this.output(flags)
    const client = await this.httpClient(flags)
    const answer = await client.get<TraceNamesAnswer>('/api/v1/traces/names', {
      query: { limit: flags.limit, offset: flags.offset },
    })
    out.list(answer.trace_names, TRACE_NAME_COLUMNS)
    const note = nextPageNote(flags.offset, answer.trace_names.length, answer.total)
    if (out.tabular && note) out.note(note)
    return answer.trace_names
  }
}
