import { Args, Flags } from '@oclif/core'
import { confirmByName } from '../../cli/confirm.js'
import { EXIT } from '../../cli/errors.js'
import { dryRunFlag, yesFlag } from '../../cli/flags.js'
import { HttpCommand } from '../../cli/http-command.js'
import { queuePath, type QueueDetail } from '../../cli/queues.js'
import type { QueueClearAnswer } from '../../wire/index.js'

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
    const out = this.output(flags)
    const client = await this.httpClient(flags)
    const where = flags.partition ? `partition ${flags.partition} of queue ${args.queue}` : `queue ${args.queue}`
    if (flags['dry-run']) {
      const queue = await client.get<QueueDetail>(queuePath(args.queue))
      const partitions = flags.partition ? queue.partitions.filter((p) => p.name === flags.partition) : queue.partitions
      const messages = partitions.reduce((sum, p) => sum + p.stats.total, 0)
      out.note(`would delete ${messages} message(s) of ${where}`)
      if (messages === 0) this.exit(EXIT.noop)
      return { dryRun: true, queue: args.queue, partition: flags.partition ?? null, messages }
    }
    await confirmByName({
      yes: flags.yes,
      name: args.queue,
      question: `Delete every message of ${where}?`,
      action: `clear ${where}`,
      retry: `queenctl queue clear ${args.queue}${flags.partition ? ` --partition ${flags.partition}` : ''} --yes`,
    })
    const answer = await client.delete<QueueClearAnswer>(`/api/v1/queues/${encodeURIComponent(args.queue)}/clear`, {
      query: { partition: flags.partition },
    })
    out.confirm(`cleared ${where}: ${answer.deletedMessages} message(s) deleted`)
    if (!out.tabular) out.detail({}, answer)
    return answer
  }
}
