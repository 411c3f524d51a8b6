import { Args } from '@oclif/core'
import { EXIT } from '../../cli/errors.js'
import { dryRunFlag, yesFlag } from '../../cli/flags.js'
import { HttpCommand } from '../../cli/http-command.js'
import { clearMessages, isEmptyPreview } from '../../cli/queue-clear.js'

export default class PartitionClear extends HttpCommand {
  static override summary = 'Delete every message of one partition, keeping the partition'
  static override description =
    "DELETE /api/v1/queues/:queue/clear?partition=P (queue clear --partition). The queue's options, the partition and the consumer groups' positions stay. A partition the queue does not have exits 1. Needs --yes when stdin is not a terminal (on one, type the partition name). --dry-run prints the messages that would go (exit 4 when none)."

  static override hiddenAliases = ['partitions:clear', 'p:clear']

  static override examples = [
    '<%= config.bin %> partition clear orders customer-42 --yes',
    '<%= config.bin %> partition clear orders customer-42 --dry-run',
  ]

  static override args = {
    queue: Args.string({ description: 'queue name', required: true }),
    partition: Args.string({ description: 'partition name', required: true }),
  }

  static override flags = {
    yes: yesFlag,
    'dry-run': dryRunFlag,
  }

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(PartitionClear)
    const result = await clearMessages(await this.httpClient(flags), this.output(flags), {
      queue: args.queue,
      partition: args.partition,
      requirePartition: true,
      yes: flags.yes,
      dryRun: flags['dry-run'],
      retry: `queenctl partition clear ${args.queue} ${args.partition} --yes`,
    })
    if (isEmptyPreview(result)) this.exit(EXIT.noop)
    return result
  }
}
