import { Args } from '@oclif/core'
import type { GroupRow } from '../../cli/consumer-groups.js'
import { EXIT, UserError } from '../../cli/errors.js'
import { HttpCommand } from '../../cli/http-command.js'
import { queuePath, type PartitionDetail, type QueueDetail } from '../../cli/queues.js'
import type { ConsumerGroupDetailAnswer, GroupPartition } from '../../wire/index.js'

/** A consumer group's position on the partition. */
type GroupPosition = Omit<GroupPartition, 'partition'> & { group: string }

export default class PartitionDescribe extends HttpCommand {
  static override summary = "Show one partition: counters, message times and every consumer group's position"
  static override description =
    'Reads GET /api/v1/resources/queues/:queue for the partition, then GET /api/v1/consumer-groups and each group of the queue for its lag on this partition.'

  static override aliases = ['partition:get', 'partition:show']
  static override hiddenAliases = ['partitions:describe', 'partitions:get', 'p:describe', 'p:get', 'p:show']

  static override examples = [
    '<%= config.bin %> partition describe orders customer-42',
    '<%= config.bin %> partition describe orders customer-42 --output json',
  ]

  static override args = {
    queue: Args.string({ description: 'queue name', required: true }),
    partition: Args.string({ description: 'partition name', required: true }),
  }

  async run(): Promise<PartitionDetail & { queue: string; groups: GroupPosition[] }> {
    const { args, flags } = await this.parse(PartitionDescribe)
    const out = this.output(flags)
    const client = await this.httpClient(flags)
    const queue = await client.get<QueueDetail>(queuePath(args.queue))
    const partition = queue.partitions.find((candidate) => candidate.name === args.partition)
    if (!partition) {
      throw new UserError(`queue ${JSON.stringify(args.queue)} has no partition ${JSON.stringify(args.partition)}`, {
        exitCode: EXIT.user,
        code: 'not_found',
        hint: `queenctl partition list ${args.queue} shows its partitions`,
      })
    }
    const groups: GroupPosition[] = []
    const rows = await client.get<GroupRow[]>('/api/v1/consumer-groups')
    for (const row of rows.filter((candidate) => candidate.queueName === args.queue)) {
      const detail = await client.get<ConsumerGroupDetailAnswer>(
        `/api/v1/consumer-groups/${encodeURIComponent(row.name)}`,
      )
      const position = detail[args.queue]?.partitions.find((entry) => entry.partition === args.partition)
      if (position) {
        const { partition: _name, ...figures } = position
        void _name
        groups.push({ group: row.name, ...figures })
      }
    }
    const result = { queue: args.queue, ...partition, groups }
    out.detail(
      {
        queue: args.queue,
        partition: partition.name,
        id: partition.id,
        created: partition.createdAt,
        messages: partition.stats,
        oldestMessage: partition.oldestMessage,
        newestMessage: partition.newestMessage,
        groups: Object.fromEntries(
          groups.map((group) => [
            group.group,
            { lag: group.offsetLag, lagSeconds: group.timeLagSeconds, leased: group.leaseActive },
          ]),
        ),
      },
      result,
    )
    return result
  }
}
