import { HttpCommand } from '../../cli/http-command.js'
import { MESSAGE_COLUMNS, messageListFlags, messageListQuery, type MessageListItem } from '../../cli/messages.js'

export default class MessagesList extends HttpCommand {
  static override summary = 'List messages, newest first, without payloads'
  static override description =
    'GET /api/v1/messages. By default the last hour of every queue (--from/--to change the window); --status is computed for --cg (queue mode without it). -o wide adds PARTITION ID, NAMESPACE, TASK, GROUPS (consumed/total) and LEASE EXPIRES.'

  static override aliases = ['messages:ls']
  static override hiddenAliases = ['msg:list', 'msg:ls', 'msgs:list', 'msgs:ls']
  static override examples = [
    '<%= config.bin %> messages list --queue orders',
    '<%= config.bin %> messages list --queue orders --status dead_letter --from "1d ago" --output wide',
    '<%= config.bin %> messages list --namespace billing --cg audit --status pending --limit 50 --output json',
  ]

  static override flags = messageListFlags

  async run(): Promise<MessageListItem[]> {
    const { flags } = await this.parse(MessagesList)
    const out = this.output(flags)
    const client = await this.httpClient(flags)
    const query = messageListQuery(flags)
    const answer = await client.get<{ messages: MessageListItem[] }>('/api/v1/messages', { query })
    out.list(answer.messages, MESSAGE_COLUMNS)
    if (out.tabular && answer.messages.length === flags.limit) {
      out.note(`showing ${flags.limit} messages; the next page: --offset ${flags.offset + flags.limit}`)
    }
    return answer.messages
  }
}
