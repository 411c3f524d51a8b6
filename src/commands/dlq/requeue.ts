import { dlqFilterFlags, requeueDeadLetter } from '../../cli/dead-letters.js'
import { runDlqBulk, type DlqBulkResult } from '../../cli/dlq-bulk.js'
import { dryRunFlag, yesFlag } from '../../cli/flags.js'
import { HttpCommand } from '../../cli/http-command.js'

export default class DlqRequeue extends HttpCommand {
  // The Go queenctl names this verb dlq retry.
  static override hiddenAliases = ['dlq:retry']
  static override summary = 'Redeliver dead-lettered messages to the groups that gave up on them'
  static override description =
    'Pages through GET /api/v1/dlq with the filters, then calls POST /api/v1/messages/:partitionId/:transactionId/retry for each row with its group: the message is delivered to that group again, with its transaction id, ahead of its next message, its failure count back at 0. Prints requeued=N errors=M; exit 4 when nothing matched; when rows failed, the exit code of the first failure. Needs --yes when stdin is not a terminal; --dry-run lists the rows and changes nothing.'

  static override examples = [
    '<%= config.bin %> dlq requeue --queue orders --cg billing --yes',
    '<%= config.bin %> dlq requeue --queue orders --from "1h ago" --dry-run',
    '<%= config.bin %> dlq requeue --yes',
  ]

  static override flags = { ...dlqFilterFlags, yes: yesFlag, 'dry-run': dryRunFlag }

  async run(): Promise<DlqBulkResult> {
    const { flags } = await this.parse(DlqRequeue)
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
        verb: 'requeue',
        counter: 'requeued',
        question: 'Requeue',
        items: (rows) => rows,
        act: requeueDeadLetter,
        describe: (failure) => `${failure.transactionId} (group ${failure.consumerGroup}): ${failure.error}`,
      },
    )
  }
}
