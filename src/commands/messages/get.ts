import { messagePath } from '../../cli/dead-letters.js'
import { HttpCommand } from '../../cli/http-command.js'
import { messageArgs, messageDisplay, type MessageDetail } from '../../cli/messages.js'

export default class MessagesGet extends HttpCommand {
  static override summary = 'Show one message with its payload and per-group state'
  static override description =
    'GET /api/v1/messages/:partitionId/:transactionId: status, failures, the consumer groups that consumed it, and the decrypted payload. A message that does not exist exits 1.'

  static override aliases = ['messages:show', 'messages:describe']
  static override hiddenAliases = ['msg:get', 'msgs:get', 'msg:show', 'msgs:show']
  static override examples = [
    '<%= config.bin %> messages get 0193e5b4-7f7e-7b1a-9c41-6f2d0a4b5c6d order-1042',
    '<%= config.bin %> messages get 0193e5b4-7f7e-7b1a-9c41-6f2d0a4b5c6d order-1042 --output json',
  ]

  static override args = messageArgs

  async run(): Promise<MessageDetail> {
    const { args, flags } = await this.parse(MessagesGet)
    const out = this.output(flags)
    const client = await this.httpClient(flags)
    const message = await client.get<MessageDetail>(messagePath(args.partitionId, args.transactionId))
    out.detail(messageDisplay(message), message)
    return message
  }
}
