import { Readable } from 'node:stream'
import { Args, Flags } from '@oclif/core'
import { EXIT, UserError } from '../cli/errors.js'
import { dryRunFlag } from '../cli/flags.js'
import { HttpCommand } from '../cli/http-command.js'
import { openNdjsonInput, type NdjsonInput } from '../cli/ndjson-lines.js'
import { ProgressLine } from '../cli/progress.js'
import {
  DEFAULT_PUSH_BATCH,
  dryRunPush,
  pushInput,
  pushSummary,
  type PushDryRun,
  type PushResult,
} from '../cli/push.js'

/** Failed items reported one by one on stderr; the rest are counted. */
const REPORTED_FAILURES = 20

export default class Push extends HttpCommand {
  static override textOnPipe = true
  static override summary = 'Push NDJSON messages (stdin, -f FILE or --data) into a queue'
  static override description =
    "Reads one JSON payload per line (lines up to 16 MiB) from stdin, -f FILE or --data, and pushes them in batches of --batch with POST /api/v1/push, streaming: one request is in flight while the next batch is read, so memory stays flat on any input size and lines keep their order. Every item without a transaction id gets a UUIDv7, so a retried push (network errors and 5xx are retried) is deduplicated by the broker. With --wrapped each line is {queue?, partition?, transactionId?, traceId?, data}, the shape of spool inspect -o ndjson; a line's queue is used when no queue argument is given. Prints queued=N duplicate=N buffered=N failed=N on stdout, terminal or pipe (the typed result only with -o json); exit 4 on empty input, 2 if any item failed. A malformed line stops the push with exit 1, naming the line: the lines before it stay pushed and the message says how many, so the rest can be pushed with tail -n +LINE. A progress line with the rate is drawn on stderr when stderr is a terminal."

  static override examples = [
    '<%= config.bin %> push orders --file orders.ndjson',
    'cat orders.ndjson | <%= config.bin %> push orders --partition-key customer.region --batch 500',
    '<%= config.bin %> push orders --data \'{"id":1,"amount":9.5}\' --partition eu --transaction-id order-1',
    '<%= config.bin %> spool inspect --failed --output ndjson | <%= config.bin %> push --wrapped',
    '<%= config.bin %> push orders --file orders.ndjson --dry-run',
  ]

  static override args = {
    queue: Args.string({
      // oclif would otherwise read a piped stdin (the NDJSON) into a missing queue argument.
      ignoreStdin: true,
      description: 'queue to push into (created on first push); optional with --wrapped lines naming their queue',
    }),
  }

  static override flags = {
    file: Flags.string({
      char: 'f',
      description: 'NDJSON file to read, one payload per line; - (or no --file and no --data) reads stdin',
      exclusive: ['data'],
    }),
    data: Flags.string({ description: 'one JSON payload to push instead of reading lines', exclusive: ['file'] }),
    wrapped: Flags.boolean({
      description: 'lines are {queue?, partition?, transactionId?, traceId?, data} (spool inspect -o ndjson)',
      default: false,
    }),
    partition: Flags.string({ description: 'partition for items that name none (default: Default)' }),
    'partition-key': Flags.string({
      description:
        'dotted path into each payload (e.g. customer.region) whose value names the partition; payloads without it use --partition',
    }),
    batch: Flags.integer({
      description: 'items per request (requests also stop at 16 MiB of lines)',
      default: DEFAULT_PUSH_BATCH,
      min: 1,
      max: 10_000,
    }),
    'trace-id': Flags.string({ description: 'trace id (a UUID) for items without one' }),
    'transaction-id': Flags.string({
      description: 'transaction id of the first item (dedup key within its partition)',
    }),
    'dry-run': Flags.boolean({
      ...dryRunFlag,
      description: 'read and check every line, print what would be pushed, send nothing (exit 4 on empty input)',
    }),
  }

  async run(): Promise<PushResult | PushDryRun> {
    const { args, flags } = await this.parse(Push)
    const out = this.output(flags)
    if (args.queue === undefined && !flags.wrapped) {
      throw new UserError('push needs a queue argument', {
        hint: 'queenctl push QUEUE --file FILE, or --wrapped lines that name their queue',
      })
    }
    const input: NdjsonInput =
      flags.data === undefined
        ? await openNdjsonInput(flags.file, process.stdin)
        : { name: '--data', chunks: Readable.from([flags.data.replaceAll('\n', ' ')]) }
    if (input.name === 'stdin' && process.stdin.isTTY === true) out.note('reading NDJSON from stdin (Ctrl-D to end)')
    const settings = {
      queue: args.queue,
      wrapped: flags.wrapped,
      partition: flags.partition,
      partitionKey: flags['partition-key'],
      traceId: flags['trace-id'],
      transactionId: flags['transaction-id'],
      batch: flags.batch,
    }

    if (flags['dry-run']) {
      const plan = await dryRunPush(input, settings)
      if (plan.items === 0) this.exit(EXIT.noop)
      if (out.tabular) {
        out.write(`would push ${plan.items} item(s) in ${plan.requests} request(s)\n`)
        out.table(plan.partitions, [
          { header: 'QUEUE', value: (row) => row.queue },
          { header: 'PARTITION', value: (row) => row.partition },
          { header: 'ITEMS', value: (row) => row.items },
        ])
      } else out.detail({}, plan)
      return plan
    }

    const client = await this.httpClient(flags)
    const progress = new ProgressLine({ enabled: process.stderr.isTTY === true && !flags.quiet, noun: 'items' })
    let reported = 0
    let result: PushResult
    try {
      result = await pushInput(client, input, {
        ...settings,
        onProgress: (answered) => progress.update(answered),
        onFailure: (failure) => {
          reported += 1
          if (reported > REPORTED_FAILURES) return
          progress.clear()
          out.warn(`line ${failure.line} (transaction ${failure.transactionId}) failed: ${failure.error}`)
        },
      })
    } finally {
      progress.clear()
    }
    if (result.items === 0) this.exit(EXIT.noop)
    if (reported > REPORTED_FAILURES) out.warn(`${reported - REPORTED_FAILURES} more item(s) failed`)
    if (out.tabular) out.write(`${pushSummary(result)}\n`)
    else out.detail({}, result)
    if (result.failed > 0) process.exitCode = EXIT.server
    return result
  }
}
