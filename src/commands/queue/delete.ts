import { Args } from '@oclif/core'
import { confirmByName } from '../../cli/confirm.js'
import { EXIT } from '../../cli/errors.js'
import { dryRunFlag, yesFlag } from '../../cli/flags.js'
import { HttpCommand } from '../../cli/http-command.js'
import { queuePath, type QueueDetail } from '../../cli/queues.js'
import type { QueueDeleteAnswer } from '../../wire/index.js'

export default class QueueDelete extends HttpCommand {
  static override summary = 'Delete a queue with its partitions, messages and consumer-group state'
  static override description =
    'DELETE /api/v1/resources/queues/:queue. Needs --yes when stdin is not a terminal (on one, type the queue name). --dry-run shows what would go and deletes nothing (exit 4 when the queue does not exist).'

  static override aliases = ['queue:rm']
  static override hiddenAliases = ['q:delete', 'q:rm']

  static override examples = [
    '<%= config.bin %> queue delete orders --yes',
    '<%= config.bin %> queue delete orders --dry-run',
  ]

  static override args = { queue: Args.string({ description: 'queue name', required: true }) }

  static override flags = { yes: yesFlag, 'dry-run': dryRunFlag }

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(QueueDelete)
    const out = this.output(flags)
    const client = await this.httpClient(flags)
    if (flags['dry-run']) {
      const queue = await client.get<QueueDetail>(queuePath(args.queue)).catch((error: { status?: number }) => {
        if (error.status === 404) return undefined
        throw error
      })
      if (!queue) {
        out.note(`queue ${JSON.stringify(args.queue)} does not exist: nothing to delete`)
        this.exit(EXIT.noop)
      }
      out.note(
        `would delete queue ${JSON.stringify(args.queue)}: ${queue.partitions.length} partition(s), ${queue.totals.total} message(s)`,
      )
      return { dryRun: true, queue: args.queue, partitions: queue.partitions.length, messages: queue.totals.total }
    }
    await confirmByName({
      yes: flags.yes,
      name: args.queue,
      question: `Delete queue ${args.queue} with every message and consumer-group position?`,
      action: `delete queue ${args.queue}`,
      retry: `queenctl queue delete ${args.queue} --yes`,
    })
    const answer = await client.delete<QueueDeleteAnswer>(queuePath(args.queue))
    out.confirm(
      answer.existed
        ? `deleted queue ${JSON.stringify(args.queue)}`
        : `queue ${JSON.stringify(args.queue)} did not exist`,
    )
    if (!out.tabular) out.detail({}, answer)
    return answer
  }
}
