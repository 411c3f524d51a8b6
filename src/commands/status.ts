import { Args, Flags } from '@oclif/core'
import { UserError } from '../cli/errors.js'
import { HttpCommand } from '../cli/http-command.js'
import { renderDetail, type Column } from '../cli/output.js'
import type { MessageCounters, PartitionStatus, QueueStatusAnswer, StatusAnswer } from '../wire/index.js'

const PARTITION_COLUMNS: Column<PartitionStatus>[] = [
  { header: 'PARTITION', value: (row) => row.name },
  { header: 'PENDING', value: (row) => row.messages.pending },
  { header: 'PROCESSING', value: (row) => row.messages.processing },
  { header: 'COMPLETED', value: (row) => row.messages.completed },
  { header: 'FAILED', value: (row) => row.messages.failed, wide: true },
  { header: 'DLQ', value: (row) => row.messages.deadLetter, wide: true },
  { header: 'LAST ACTIVITY', value: (row) => row.lastActivity, wide: true },
]

export default class Status extends HttpCommand {
  static override summary = 'A summary of the cluster, or of one queue'
  static override description =
    'Counters come from the statistics snapshot (cg refresh-stats recomputes it now). Without a queue: GET /api/v1/status (message counters, queues, active leases, DLQ, the broker replicas seen in the last hour, the statistics age). With one: GET /api/v1/status/queues/:queue (totals, then a row per partition). -o json prints the broker answer.'

  static override examples = [
    '<%= config.bin %> status',
    '<%= config.bin %> status orders --output wide',
    '<%= config.bin %> status --namespace billing',
  ]

  static override args = { queue: Args.string({ description: 'queue to summarise (default: the whole cluster)' }) }

  // The Go queenctl's status flags.
  static override flags = {
    namespace: Flags.string({ description: 'only the queues of this namespace (without a queue)' }),
    task: Flags.string({ description: 'only the queues of this task (without a queue)' }),
    partitions: Flags.boolean({
      description: "a queue's partitions, row by row (always shown; taken for the Go queenctl's scripts)",
      default: false,
    }),
  }

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(Status)
    const out = this.output(flags)
    const client = await this.httpClient(flags)
    if (args.queue !== undefined) {
      if (flags.namespace !== undefined || flags.task !== undefined) {
        throw new UserError(`status ${args.queue}: --namespace and --task filter the cluster summary, not a queue`)
      }
      const status = await client.get<QueueStatusAnswer>(`/api/v1/status/queues/${encodeURIComponent(args.queue)}`)
      if (out.tabular) {
        out.write(
          `${renderDetail({ queue: status.queue.name, namespace: status.queue.namespace, task: status.queue.task, ...counters(status.totals) })}\n`,
        )
        out.table(status.partitions, PARTITION_COLUMNS)
      } else out.detail({}, status)
      return status
    }
    const status = await client.get<StatusAnswer>('/api/v1/status', {
      query: { namespace: flags.namespace, task: flags.task },
    })
    out.detail(
      {
        queues: status.queues.length,
        partitions: status.queues.reduce((sum, queue) => sum + queue.partitions, 0),
        ...status.messages,
        activeLeases: status.leases.active,
        deadLetterQueue: status.deadLetterQueue.totalMessages,
        brokers: status.workers.map(
          (worker) => `${worker.serverId} (${worker.hostname}, last seen ${worker.lastSeen})`,
        ),
        statsAgeSeconds: status.statsAge,
      },
      status,
    )
    return status
  }
}

/** The six counters of a totals object (the broker also nests a copy under `messages`). */
function counters(totals: MessageCounters): Record<string, number> {
  const { total, pending, processing, completed, failed, deadLetter } = totals
  return { total, pending, processing, completed, failed, deadLetter }
}
