import { Flags } from '@oclif/core'
import {
  QUEUE_OPS_SERIES_COLUMNS,
  QUEUE_OPS_TOTAL_COLUMNS,
  queueFilterFlag,
  windowFlags,
  windowNote,
  windowQuery,
  type QueueOpsAnswer,
} from '../../cli/analytics.js'
import { HttpCommand } from '../../cli/http-command.js'

export default class AnalyticsQueueOps extends HttpCommand {
  static override summary = 'Pushes, pops, acks, failures and dead letters per queue'
  static override description =
    'GET /api/v1/analytics/queue-ops: the totals of the window (default the last hour) per queue: QUEUE, PUSH, POP, ACK, FAILED, DLQ; --series prints one row per queue and time bucket instead. -o json prints the broker answer (series and totals).'

  static override examples = [
    '<%= config.bin %> analytics queue-ops',
    '<%= config.bin %> analytics queue-ops --queue orders --from "30m ago" --series',
    '<%= config.bin %> analytics queue-ops --from 2026-01-31T08:00:00 --to 2026-01-31T09:00:00 --output json',
  ]

  static override flags = {
    ...windowFlags,
    queue: queueFilterFlag,
    series: Flags.boolean({ description: 'one row per queue and time bucket instead of the totals', default: false }),
  }

  async run(): Promise<QueueOpsAnswer> {
    const { flags } = await this.parse(AnalyticsQueueOps)
    const out = this.output(flags)
    const client = await this.httpClient(flags)
    const answer = await client.get<QueueOpsAnswer>('/api/v1/analytics/queue-ops', {
      query: { ...windowQuery(flags), queue: flags.queue },
    })
    if (flags.series) out.list(answer.series, QUEUE_OPS_SERIES_COLUMNS)
    else out.list(answer.queues, QUEUE_OPS_TOTAL_COLUMNS)
    if (out.tabular) out.note(windowNote(answer))
    return answer
  }
}
