import { Flags } from '@oclif/core'
import { HttpCommand } from '../../cli/http-command.js'
import {
  listMessages,
  MESSAGE_COLUMNS,
  messageListFlags,
  messageListQuery,
  type MessageListItem,
} from '../../cli/messages.js'

export default class MessagesList extends HttpCommand {
  static override summary = 'List messages, newest first, without payloads'
  static override description =
    'GET /api/v1/messages. By default the last hour of every queue (--from/--to change the window); --status is computed for --cg (queue mode without it). --limit above 1,000 is fetched in pages of 1,000. -o wide adds PARTITION ID, NAMESPACE, TASK, GROUPS (consumed/total) and LEASE EXPIRES.'

  static override aliases = ['messages:ls']
  static override hiddenAliases = ['msg:list', 'msg:ls', 'msgs:list', 'msgs:ls']
  static override examples = [
    '<%= config.bin %> messages list --queue orders',
    '<%= config.bin %> messages list --queue orders --status dead_letter --from "1d ago" --output wide',
    '<%= config.bin %> messages list --namespace billing --cg audit --status pending --limit 50 --output json',
    '<%= config.bin %> messages list --queue orders --limit 10000 --output ndjson',
  ]

  static override flags = {
    ...messageListFlags,
    limit: Flags.integer({
      description: 'rows to list; above 1,000 (the broker answers at most 1,000 at once) they are fetched in pages',
      default: 200,
      min: 1,
      max: 1_000_000,
    }),
  }

  async run(): Promise<MessageListItem[]> {
    const { flags } = await this.parse(MessagesList)
    const out = this.output(flags)
    const client = await this.httpClient(flags)
    const query = messageListQuery(flags)
    const messages = await listMessages(client, query, flags.limit, flags.offset)
    out.list(messages, MESSAGE_COLUMNS)
    if (out.tabular && messages.length === flags.limit) {
      out.note(`showing ${flags.limit} messages; the next page: --offset ${flags.offset + flags.limit}`)
    }
    return messages
  }
}
