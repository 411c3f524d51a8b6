import { Args, Flags } from '@oclif/core'
import { ACK_STATUSES, ackInput, ackOne, type AckOutcome } from '../cli/ack.js'
import type { AckResultItem } from '../wire/index.js'
import { EXIT, UserError } from '../cli/errors.js'
import { HttpCommand } from '../cli/http-command.js'
import { openNdjsonInput } from '../cli/ndjson-lines.js'

/** Failed acks reported one by one on stderr; the rest are counted. */
const REPORTED_FAILURES = 20

export default class Ack extends HttpCommand {
  static override textOnPipe = true
  static override summary = 'Acknowledge a popped message, or every line of pop/tail NDJSON with --batch'
  static override description =
    "Acknowledges one message (its transaction id, --partition-id and, to be sure the lease is still ours, --lease-id) with --status completed (default), failed (redelivered, or dead-lettered once its retries are spent), dlq or retry. --batch FILE (or - for stdin) reads the NDJSON that pop and tail print and acknowledges every line through POST /api/v1/ack/batch, in requests of 1,000; a line may carry its own status and error. --cg names the group that popped (queue mode when absent; with --batch it overrides the lines' own consumerGroup). Prints ack ok, or ok=N failed=M for --batch on stdout, terminal or pipe (the typed result only with -o json); exit 2 when an ack failed, 4 for --batch input without lines. Acks are never retried."

  static override examples = [
    '<%= config.bin %> ack 0190f3c2-7a1e-7cc1-9b55-3f1e2d4c5b6a --partition-id 0190f3c2-0000-7000-8000-000000000001 --lease-id 0190f3c2-1111-7000-8000-000000000002',
    '<%= config.bin %> ack order-42 --partition-id 0190f3c2-0000-7000-8000-000000000001 --cg billing --status failed --error "card declined"',
    '<%= config.bin %> pop orders --limit 50 | <%= config.bin %> ack --batch -',
    '<%= config.bin %> ack --batch popped.ndjson --status dlq --error "poison message"',
    '<%= config.bin %> ack order-42 --partition-id 0190f3c2-0000-7000-8000-000000000001 --failed --error "timeout"',
  ]

  static override args = {
    transactionId: Args.string({
      description: 'transaction id of the message (omit with --batch)',
      // oclif would otherwise read a piped stdin (the --batch - input) into a missing argument.
      ignoreStdin: true,
    }),
  }

  static override flags = {
    'partition-id': Flags.string({ description: 'partition id of the message (the partitionId of pop)' }),
    'lease-id': Flags.string({ description: 'lease the message was popped under; refused when no longer live' }),
    cg: Flags.string({ description: 'consumer group that popped the message (default: queue mode)' }),
    status: Flags.string({
      description: 'outcome: completed, failed (retried, then dead-lettered), dlq, or retry',
      options: [...ACK_STATUSES],
    }),
    failed: Flags.boolean({
      description: 'the same as --status failed (the Go queenctl flag)',
      default: false,
      exclusive: ['status'],
    }),
    error: Flags.string({ description: 'error text stored with a failure or dead-letter entry' }),
    batch: Flags.string({
      description: 'NDJSON of pop/tail lines to acknowledge (- for stdin)',
      exclusive: ['partition-id', 'lease-id'],
    }),
  }

  async run(): Promise<AckResultItem | AckOutcome> {
    const { args, flags } = await this.parse(Ack)
    const out = this.output(flags)
    const status = flags.failed ? 'failed' : flags.status
    if (flags.batch !== undefined) {
      if (args.transactionId !== undefined) {
        throw new UserError('a transaction id argument and --batch exclude each other', {
          hint: 'acknowledge one message, or every line of --batch',
        })
      }
      const input = await openNdjsonInput(flags.batch, process.stdin)
      const client = await this.httpClient(flags)
      let reported = 0
      const outcome = await ackInput(client, input, {
        consumerGroup: flags.cg,
        status,
        error: flags.error,
        onFailure: (failure) => {
          reported += 1
          if (reported <= REPORTED_FAILURES)
            out.warn(`line ${failure.line ?? '?'} (transaction ${failure.transactionId}) failed: ${failure.error}`)
        },
      })
      if (outcome === undefined) this.exit(EXIT.noop)
      if (reported > REPORTED_FAILURES) out.warn(`${reported - REPORTED_FAILURES} more ack(s) failed`)
      if (out.tabular) out.write(`ok=${outcome.ok} failed=${outcome.failed}\n`)
      else out.detail({}, outcome)
      if (outcome.failed > 0) process.exitCode = EXIT.server
      return outcome
    }
    if (args.transactionId === undefined || flags['partition-id'] === undefined) {
      throw new UserError('ack needs a transaction id and --partition-id, or --batch FILE', {
        hint: 'both are in every line pop and tail print (transactionId, partitionId)',
      })
    }
    const client = await this.httpClient(flags)
    const result = await ackOne(client, {
      transactionId: args.transactionId,
      partitionId: flags['partition-id'],
      leaseId: flags['lease-id'],
      consumerGroup: flags.cg,
      status,
      error: flags.error,
    })
    if (out.tabular) out.write('ack ok\n')
    else out.detail({}, result)
    return result
  }
}
