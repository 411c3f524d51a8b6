import { Args } from '@oclif/core'
import { HttpCommand } from '../../cli/http-command.js'
import { QUEUE_COLUMNS } from '../../cli/queues.js'
import type { Column } from '../../cli/output.js'
import type { PartitionStatus, QueueStatusAnswer, QueueStatusListAnswer } from '../../wire/index.js'

const PARTITION_STATUS_COLUMNS: Column<PartitionStatus>[] = [
  { header: 'PARTITION', value: (row) => row.name },
  { header: 'PENDING', value: (row) => row.messages.pending },
  { header: 'PROCESSING', value: (row) => row.messages.processing },
  { header: 'COMPLETED', value: (row) => row.messages.completed },
  { header: 'FAILED', value: (row) => row.messages.failed },
  { header: 'DLQ', value: (row) => row.messages.deadLetter },
  { header: 'CONSUMED', value: (row) => row.cursor.totalConsumed, wide: true },
  { header: 'LAST ACTIVITY', value: (row) => row.lastActivity, wide: true },
  { header: 'OLDEST', value: (row) => row.oldestMessage, wide: true },
]

export default class QueueStats extends HttpCommand {
  static override summary = 'Message counters of every queue, or of one queue by partition'
  static override description =
    'Without a queue: GET /api/v1/status/queues (one row per queue). With one: GET /api/v1/status/queues/:queue (one row per partition, with the cursor figures).'

  static override hiddenAliases = ['q:stats']

  static override examples = ['<%= config.bin %> queue stats', '<%= config.bin %> queue stats orders --output wide']

  static override args = { queue: Args.string({ description: 'queue name (default: every queue)' }) }

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(QueueStats)
    const out = this.output(flags)
    const client = await this.httpClient(flags)
    if (args.queue === undefined) {
      const answer = await client.get<QueueStatusListAnswer>('/api/v1/status/queues', { query: { limit: 10_000 } })
      out.list(answer.queues, QUEUE_COLUMNS)
      return answer.queues
    }
    const answer = await client.get<QueueStatusAnswer>(
      `/api/v1/status/queues/${encodeURIComponent(args.queue)}`,
    )
    out.list(answer.partitions, PARTITION_STATUS_COLUMNS)
    return answer.partitions
  }
}
