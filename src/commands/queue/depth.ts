import { Args, Flags } from '@oclif/core'
import { UserError } from '../../cli/errors.js'
import { HttpCommand } from '../../cli/http-command.js'
import { DEPTH_COLUMNS, queuePath, type QueueDepthAnswer } from '../../cli/queues.js'

export default class QueueDepth extends HttpCommand {
  static override summary = "A queue's backlog for a consumer group: pending messages and the partitions holding them"
  static override description =
    'GET /api/v1/resources/queues/:queue/depth, the cheap sibling of queue describe: one live read, counted from the cursors (never the stats snapshot). Pending is what the group (--group; without it, the group the status counters use: queue mode where it has read a partition, else the slowest group) has not acknowledged, in flight included. The table is one summary row (pending, partitions, partitions pending; -o wide adds processing, ready and the group); -o json/yaml print the broker answer with every partition. Exit 1 for an unknown queue.'

  static override hiddenAliases = ['q:depth']

  static override examples = [
    '<%= config.bin %> queue depth orders',
    '<%= config.bin %> queue depth orders --group billing -o json',
    "<%= config.bin %> queue depth orders --group billing -o jsonpath='.pending'",
  ]

  static override args = { queue: Args.string({ description: 'queue name', required: true }) }

  static override flags = {
    group: Flags.string({
      description: 'consumer group whose backlog to count (default: queue mode, else the slowest group per partition)',
    }),
  }

  async run(): Promise<QueueDepthAnswer> {
    const { args, flags } = await this.parse(QueueDepth)
    const out = this.output(flags)
    const client = await this.httpClient(flags)
    const answer = await client
      .get<QueueDepthAnswer>(`${queuePath(args.queue)}/depth`, { query: { group: flags.group } })
      .catch((error: unknown) => {
        if ((error as { status?: number }).status === 404) {
          throw new UserError(`queue ${JSON.stringify(args.queue)} not found`, {
            hint: 'queenctl queue list shows the queues',
            code: 'not_found',
            cause: error,
          })
        }
        throw error
      })
    if (out.tabular) out.table([answer], DEPTH_COLUMNS)
    else out.detail({}, answer)
    return answer
  }
}
