import { deleteMessage, distinctMessages, dlqFilterFlags } from '../../cli/dead-letters.js'
import { runDlqBulk, type DlqBulkResult } from '../../cli/dlq-bulk.js'
import { dryRunFlag, yesFlag } from '../../cli/flags.js'
import { HttpCommand } from '../../cli/http-command.js'

export default class DlqDrain extends HttpCommand {
  static override textOnPipe = true
  static override summary = 'Delete dead-lettered messages'
  static override description =
    'Pages through GET /api/v1/dlq with the filters, then deletes each matching message once (DELETE /api/v1/messages/:partitionId/:transactionId: the message, its DLQ entries for every group and its traces). Prints processed=N errors=M on stdout, terminal or pipe, as the Go queenctl does (the typed result, with deleted, only with -o json); exit 4 when nothing matched; when messages failed, the exit code of the first failure. Needs --yes when stdin is not a terminal; --dry-run lists the rows and deletes nothing.'

  static override examples = [
    '<%= config.bin %> dlq drain --queue orders --to "7d ago" --yes',
    '<%= config.bin %> dlq drain --queue orders --cg billing --dry-run',
  ]

  static override flags = { ...dlqFilterFlags, yes: yesFlag, 'dry-run': dryRunFlag }

  async run(): Promise<DlqBulkResult> {
    const { flags } = await this.parse(DlqDrain)
    return runDlqBulk(
      {
        out: this.output(flags),
        client: () => this.httpClient(flags),
        filters: { queue: flags.queue, cg: flags.cg, partition: flags.partition, from: flags.from, to: flags.to },
        yes: flags.yes,
        dryRun: flags['dry-run'],
        exit: (code) => this.exit(code),
      },
      {
        verb: 'drain',
        counter: 'deleted',
        lineCounter: 'processed',
        question: 'Delete',
        items: distinctMessages,
        act: (client, item) => deleteMessage(client, item.partitionId, item.transactionId),
        describe: (failure) => `${failure.transactionId}: ${failure.error}`,
      },
    )
  }
}
