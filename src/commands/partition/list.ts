import { Args } from '@oclif/core'
import { HttpCommand } from '../../cli/http-command.js'
import { PARTITION_COLUMNS, queuePath, type PartitionDetail, type QueueDetail } from '../../cli/queues.js'

export default class PartitionList extends HttpCommand {
  static override summary = 'List the partitions of a queue with their message counters'
  static override description =
    'From GET /api/v1/resources/queues/:queue (live counters). -o wide adds failed, DLQ, oldest and newest message times and the partition id; -o json prints the rows.'

  static override aliases = ['partition:ls', 'partitions:list']
  static override hiddenAliases = ['partitions:ls', 'partitions', 'p:list', 'p:ls']

  static override examples = [
    '<%= config.bin %> partition list orders',
    '<%= config.bin %> partition ls orders --output wide',
  ]

  static override args = { queue: Args.string({ description: 'queue name', required: true }) }

  async run(): Promise<PartitionDetail[]> {
    const { args, flags } = await this.parse(PartitionList)
    const out = this.output(flags)
    const queue = await (await this.httpClient(flags)).get<QueueDetail>(queuePath(args.queue))
    out.list(queue.partitions, PARTITION_COLUMNS)
    return queue.partitions
  }
}
