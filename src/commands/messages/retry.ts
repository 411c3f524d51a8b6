import { Flags } from '@oclif/core'
import { messagePath } from '../../cli/dead-letters.js'
import { HttpCommand } from '../../cli/http-command.js'
import { messageArgs } from '../../cli/messages.js'
import type { MessageRetryAnswer } from '../../wire/index.js'

export default class MessagesRetry extends HttpCommand {
  static override summary = 'Take one message out of the DLQ and deliver it again'
  static override description =
    "POST /api/v1/messages/:partitionId/:transactionId/retry: for --cg, or for every group that dead-lettered it, the message becomes deliverable again ahead of the group's next message, with its failure count at 0. When only a DLQ copy is left, the copy is pushed anew (a new transaction id is printed). Not in the DLQ: exit 1."

  static override hiddenAliases = ['msg:retry', 'msgs:retry']
  static override examples = [
    '<%= config.bin %> messages retry 0193e5b4-7f7e-7b1a-9c41-6f2d0a4b5c6d order-1042 --cg billing',
    '<%= config.bin %> messages retry 0193e5b4-7f7e-7b1a-9c41-6f2d0a4b5c6d order-1042',
  ]

  static override args = messageArgs
  static override flags = {
    cg: Flags.string({
      description: 'only for this consumer group (__QUEUE_MODE__ for queue mode; default: every group)',
    }),
  }

  async run(): Promise<MessageRetryAnswer> {
    const { args, flags } = await this.parse(MessagesRetry)
    const out = this.output(flags)
    const client = await this.httpClient(flags)
    const body = flags.cg === undefined ? {} : { consumerGroup: flags.cg }
    const answer = await client.post<MessageRetryAnswer>(
      messagePath(args.partitionId, args.transactionId, '/retry'),
      body,
    )
    out.confirm(
      `requeued message ${args.transactionId} for ${answer.consumerGroups.join(', ')}` +
        (answer.newTransactionId ? ` as ${answer.newTransactionId}` : ''),
    )
    if (!out.tabular) out.detail({}, answer)
    return answer
  }
}
