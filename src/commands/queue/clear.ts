import { Args, Flags } from '@oclif/core'
import { EXIT } from '../../cli/errors.js'
import { dryRunFlag, yesFlag } from '../../cli/flags.js'
import { HttpCommand } from '../../cli/http-command.js'
import { clearMessages, isEmptyPreview } from '../../cli/queue-clear.js'

export default class QueueClear extends HttpCommand {
  static override summary = 'Delete every message of a queue (or of one partition), keeping the queue'
  static override description =
    'DELETE /api/v1/queues/:queue/clear. Options, partitions and consumer groups stay. Needs --yes when stdin is not a terminal (on one, type the queue name). --dry-run prints the messages that would go (exit 4 when none).'

  static override hiddenAliases = ['q:clear', 'queue:purge']

  static override examples = [
    '<%= config.bin %> queue clear orders --yes',
    '<%= config.bin %> queue clear orders --partition customer-42 --yes',
  ]

  static override args = { queue: Args.string({ description: 'queue name', required: true }) }

  static override flags = {
    partition: Flags.string({ description: 'clear only this partition' }),
    yes: yesFlag,
    'dry-run': dryRunFlag,
  }

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(QueueClear)
    const result = await clearMessages(await this.httpClient(flags), this.output(flags), {
      queue: args.queue,
      partition: flags.partition,
      yes: flags.yes,
      dryRun: flags['dry-run'],
      retry: `queenctl queue clear ${args.queue}${flags.partition ? ` --partition ${flags.partition}` : ''} --yes`,
    })
    if (isEmptyPreview(result)) this.exit(EXIT.noop)
    return result
  }
}
