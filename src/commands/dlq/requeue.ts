import { Args } from '@oclif/core'
import { dlqFilterFlags, requeueDeadLetter, type DeadLetter } from '../../cli/dead-letters.js'
import { UserError } from '../../cli/errors.js'
import { runDlqBulk, type DlqBulkResult } from '../../cli/dlq-bulk.js'
import { dryRunFlag, yesFlag } from '../../cli/flags.js'
import { HttpCommand } from '../../cli/http-command.js'

export default class DlqRequeue extends HttpCommand {
  static override textOnPipe = true
  // The Go queenctl names this verb dlq retry, and addresses one message: PARTITIONID TRANSACTIONID.
  static override hiddenAliases = ['dlq:retry']
  static override summary = 'Redeliver dead-lettered messages to the groups that gave up on them'
  static override description =
    'Pages through GET /api/v1/dlq with the filters, then calls POST /api/v1/messages/:partitionId/:transactionId/retry for each row with its group: the message is delivered to that group again, with its transaction id, ahead of its next message, its failure count back at 0. PARTITIONID TRANSACTIONID, as in the Go queenctl, narrows it to that message. Prints requeued=N errors=M on stdout, terminal or pipe (the typed result only with -o json); exit 4 when nothing matched; when rows failed, the exit code of the first failure. Needs --yes when stdin is not a terminal; --dry-run lists the rows and changes nothing.'

  static override examples = [
    '<%= config.bin %> dlq requeue --queue orders --cg billing --yes',
    '<%= config.bin %> dlq requeue --queue orders --from "1h ago" --dry-run',
    '<%= config.bin %> dlq requeue --yes',
    '<%= config.bin %> dlq requeue 0190d6c8-0000-7000-8000-000000000001 order-42 --yes',
  ]

  static override args = {
    partitionId: Args.string({
      description: 'only the message at this address: its partition id (with TRANSACTIONID)',
    }),
    transactionId: Args.string({ description: 'only the message at this address: its transaction id' }),
  }

  static override flags = { ...dlqFilterFlags, yes: yesFlag, 'dry-run': dryRunFlag }

  async run(): Promise<DlqBulkResult> {
    const { args, flags } = await this.parse(DlqRequeue)
    if (args.partitionId !== undefined && args.transactionId === undefined) {
      throw new UserError('dlq requeue: PARTITIONID needs TRANSACTIONID after it', {
        hint: 'queenctl dlq list shows both of each dead-lettered message',
      })
    }
    const address = (row: DeadLetter) =>
      args.partitionId === undefined ||
      (row.partitionId === args.partitionId && row.transactionId === args.transactionId)
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
        items: (rows) => rows.filter(address),
        act: requeueDeadLetter,
        describe: (failure) => `${failure.transactionId} (group ${failure.consumerGroup}): ${failure.error}`,
      },
    )
  }
}
