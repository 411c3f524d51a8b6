import { Args } from '@oclif/core'
import { HttpCommand } from '../../cli/http-command.js'
import { PARTITION_COLUMNS, queuePath, type QueueDetail } from '../../cli/queues.js'
import { renderDetail } from '../../cli/output.js'

export default class QueueDescribe extends HttpCommand {
  static override summary = 'Show a queue: tags, every option, totals and its partitions'
  static override description =
    'GET /api/v1/resources/queues/:queue. In table mode the queue is key/value YAML followed by the partition table; -o json/yaml print the broker answer.'

  static override aliases = ['queue:get', 'queue:show']
  static override hiddenAliases = ['q:describe', 'q:get', 'q:show']

  static override examples = ['<%= config.bin %> queue describe orders', '<%= config.bin %> q get orders --output yaml']

  static override args = { queue: Args.string({ description: 'queue name', required: true }) }

  async run(): Promise<QueueDetail> {
    const { args, flags } = await this.parse(QueueDescribe)
    const out = this.output(flags)
    const client = await this.httpClient(flags)
    const queue = await client.get<QueueDetail>(queuePath(args.queue))
    if (out.tabular) {
      out.write(
        renderDetail({
          name: queue.name,
          namespace: queue.namespace,
          task: queue.task,
          created: queue.createdAt,
          options: queue.options,
          totals: queue.totals,
        }),
      )
      out.write('\n')
      out.table(queue.partitions, PARTITION_COLUMNS)
    } else out.detail({}, queue)
    return queue
  }
}
