import { Flags } from '@oclif/core'
import { DLQ_COLUMNS, dlqFilterFlags, fetchDeadLetters, type DeadLetter } from '../../cli/dead-letters.js'
import { HttpCommand } from '../../cli/http-command.js'

export default class DlqList extends HttpCommand {
  static override summary = 'List dead-lettered messages, newest failure first'
  static override description =
    'GET /api/v1/dlq: one row per (message, consumer group) that gave up on it. Columns TX, QUEUE, PARTITION, GROUP, RETRIES, ERROR; -o wide adds FAILED AT and PARTITION ID. -o json prints the rows with their decrypted payload (data).'

  static override aliases = ['dlq:ls']
  static override examples = [
    '<%= config.bin %> dlq list',
    '<%= config.bin %> dlq list --queue orders --cg billing --from "2h ago" --output wide',
    '<%= config.bin %> dlq list --queue orders --limit 50 --offset 50 --output json',
  ]

  static override flags = {
    ...dlqFilterFlags,
    limit: Flags.integer({ description: 'rows per page (1-10000)', default: 100, min: 1, max: 10_000 }),
    offset: Flags.integer({ description: 'rows to skip', default: 0, min: 0 }),
  }

  async run(): Promise<DeadLetter[]> {
    const { flags } = await this.parse(DlqList)
    const out = this.output(flags)
    const client = await this.httpClient(flags)
    const { rows, total } = await fetchDeadLetters(client, flags, { limit: flags.limit, offset: flags.offset })
    out.list(rows, DLQ_COLUMNS)
    if (out.tabular && total !== undefined && total > flags.offset + rows.length) {
      out.note(
        `showing ${flags.offset + 1}-${flags.offset + rows.length} of ${total}; the next page: --offset ${flags.offset + rows.length}`,
      )
    }
    return rows
  }
}
