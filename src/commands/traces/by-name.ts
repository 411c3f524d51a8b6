import { Args, Flags } from '@oclif/core'
import { HttpCommand } from '../../cli/http-command.js'
import { NAMED_TRACE_COLUMNS, nextPageNote, type NamedTraceEvent } from '../../cli/trace-listing.js'
import type { NamedTracesAnswer } from '../../wire/index.js'

export default class TracesByName extends HttpCommand {
  static override summary = 'List the trace events recorded under one trace name, with their messages'
  static override description =
    'GET /api/v1/traces/by-name/:name: CREATED, TX, QUEUE, PARTITION, EVENT, GROUP and DATA; -o wide adds PARTITION ID and WORKER; -o json includes each message payload (decrypted).'

  static override examples = [
    '<%= config.bin %> traces by-name order-flow',
    '<%= config.bin %> traces by-name order-flow --limit 20 --output wide',
  ]

  static override args = { name: Args.string({ description: 'trace name', required: true }) }
  static override flags = {
    limit: Flags.integer({ description: 'events per page (1-1000)', default: 100, min: 1, max: 1000 }),
    offset: Flags.integer({ description: 'events to skip', default: 0, min: 0 }),
  }

  async run(): Promise<NamedTraceEvent[]> {
    const { args, flags } = await this.parse(TracesByName)
    const out = this.output(flags)
    const client = await this.httpClient(flags)
    const answer = await client.get<NamedTracesAnswer>(`/api/v1/traces/by-name/${encodeURIComponent(args.name)}`, {
      query: { limit: flags.limit, offset: flags.offset },
    })
    out.list(answer.traces, NAMED_TRACE_COLUMNS)
    const note = nextPageNote(flags.offset, answer.traces.length, answer.total)
    if (out.tabular && note) out.note(note)
    return answer.traces
  }
}
