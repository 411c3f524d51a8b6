import { messagePath } from '../../cli/dead-letters.js'
import { HttpCommand } from '../../cli/http-command.js'
import { messageArgs, TRACE_COLUMNS, type TraceEvent } from '../../cli/messages.js'
import type { MessageTracesAnswer } from '../../wire/index.js'

export default class MessagesTraces extends HttpCommand {
  static override summary = 'List the trace events consumers recorded on one message, oldest first'
  static override description =
    'GET /api/v1/traces/:partitionId/:transactionId: CREATED, EVENT, GROUP, WORKER, NAMES and DATA (truncated; -o json for all of it); -o wide adds the trace ID.'

  static override hiddenAliases = ['msg:traces', 'msgs:traces']
  static override examples = [
    '<%= config.bin %> messages traces 0193e5b4-7f7e-7b1a-9c41-6f2d0a4b5c6d order-1042',
    '<%= config.bin %> messages traces 0193e5b4-7f7e-7b1a-9c41-6f2d0a4b5c6d order-1042 --output json',
  ]

  static override args = messageArgs

  async run(): Promise<TraceEvent[]> {
    const { args, flags } = await this.parse(MessagesTraces)
    const out = this.output(flags)
    const client = await this.httpClient(flags)
    const path = messagePath(args.partitionId, args.transactionId).replace('/api/v1/messages/', '/api/v1/traces/')
    const answer = await client.get<MessageTracesAnswer>(path)
    out.list(answer.traces, TRACE_COLUMNS)
    return answer.traces
  }
}
