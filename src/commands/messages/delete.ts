import { confirmByName } from '../../cli/confirm.js'
import { messagePath } from '../../cli/dead-letters.js'
import { EXIT } from '../../cli/errors.js'
import { dryRunFlag, yesFlag } from '../../cli/flags.js'
import { HttpCommand } from '../../cli/http-command.js'
import { messageArgs, type MessageDetail } from '../../cli/messages.js'
import type { MessageDeleteAnswer } from '../../wire/index.js'

export default class MessagesDelete extends HttpCommand {
  static override summary = 'Delete one message with its DLQ entries and traces'
  static override description =
    'DELETE /api/v1/messages/:partitionId/:transactionId. The message counts as settled for every group, so it never holds back a cursor. Needs --yes when stdin is not a terminal (on one, type the transaction id); --dry-run shows the message and deletes nothing (exit 4 when it does not exist). A message already gone is reported, exit 0.'

  static override aliases = ['messages:rm']
  static override hiddenAliases = ['msg:delete', 'msgs:delete', 'msg:rm', 'msgs:rm']
  static override examples = [
    '<%= config.bin %> messages delete 0193e5b4-7f7e-7b1a-9c41-6f2d0a4b5c6d order-1042 --yes',
    '<%= config.bin %> messages delete 0193e5b4-7f7e-7b1a-9c41-6f2d0a4b5c6d order-1042 --dry-run',
  ]

  static override args = messageArgs
  static override flags = { yes: yesFlag, 'dry-run': dryRunFlag }

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(MessagesDelete)
    const out = this.output(flags)
    const client = await this.httpClient(flags)
    const path = messagePath(args.partitionId, args.transactionId)
    if (flags['dry-run']) {
      const message = await client.get<MessageDetail>(path).catch((error: { status?: number }) => {
        if (error.status === 404) return undefined
        throw error
      })
      if (!message) {
        out.note(`message ${args.transactionId} does not exist: nothing to delete`)
        this.exit(EXIT.noop)
      }
      out.note(
        `would delete message ${args.transactionId} of ${message.queue}/${message.partition} (${message.status})`,
      )
      const result = {
        dryRun: true,
        transactionId: message.transactionId,
        queue: message.queue,
        status: message.status,
      }
      if (!out.tabular) out.detail({}, result)
      return result
    }
    await confirmByName({
      yes: flags.yes,
      name: args.transactionId,
      question: `Delete message ${args.transactionId} with its DLQ entries and traces?`,
      action: `delete message ${args.transactionId}`,
      retry: `queenctl messages delete ${args.partitionId} ${args.transactionId} --yes`,
    })
    const answer = await client.delete<MessageDeleteAnswer>(path)
    out.confirm(
      answer.success ? `deleted message ${args.transactionId}` : `message ${args.transactionId} did not exist`,
    )
    if (!out.tabular) out.detail({}, answer)
    return answer
  }
}
