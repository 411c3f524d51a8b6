import { Args, Flags } from '@oclif/core'
import { EXIT } from '../cli/errors.js'
import { parseDurationMs } from '../cli/flags.js'
import { HttpCommand } from '../cli/http-command.js'
import { Output } from '../cli/output.js'
import { ndjsonRows, refuseConflation } from '../cli/pop.js'
import { tail, type TailResult } from '../cli/tail.js'

const DEFAULT_GROUP = 'queenctl-tail'
/** The per-request HTTP time the global --timeout gives other commands; the long-poll is added to it. */
const DEFAULT_HTTP_TIMEOUT_MS = 30_000

/** `--idle`: a bare number is milliseconds (the Go queenctl's --idle-millis), otherwise a duration. */
function parseIdleMs(input: string): number {
  return /^\d+$/.test(input.trim()) ? Number(input.trim()) : parseDurationMs(input)
}

export default class Tail extends HttpCommand {
  static override summary = 'Consume a queue in a loop, printing each message as NDJSON'
  static override description = `Pops from the queue as consumer group --cg (default ${DEFAULT_GROUP}) and prints one NDJSON line per message, the shape of pop and of ack --batch input. Without --follow it stops when nothing more is available; with --follow it long-polls for new messages until --limit messages, --idle without any, or Ctrl-C, which stops cleanly (exit 0) once the batch being printed and acked is done. --ack (or --auto-ack) acknowledges each popped batch after its lines are printed; without it the messages stay leased and are redelivered when the lease expires. --idle takes milliseconds (3000) or a duration (30s); --idle-millis N is the same. --concurrency N runs N pops at once, each on partitions of its own. Always NDJSON, whatever -o says. Exit 4 when nothing was printed (except after Ctrl-C).`

  static override examples = [
    '<%= config.bin %> tail orders --follow --ack',
    '<%= config.bin %> tail orders --cg audit --from new --follow',
    '<%= config.bin %> tail orders --partition eu --limit 100 --ack > eu.ndjson',
    '<%= config.bin %> tail orders --cg replay --since "2h ago" --idle 30s',
    '<%= config.bin %> tail orders --cg debug --auto-ack --idle-millis 3000',
    '<%= config.bin %> tail orders --cg drain --concurrency 4 --ack --idle 5s',
  ]

  static override args = {
    queue: Args.string({ description: 'queue to consume', required: true, ignoreStdin: true }),
  }

  static override flags = {
    cg: Flags.string({ description: 'consumer group whose cursor the tail advances', default: DEFAULT_GROUP }),
    partition: Flags.string({ description: 'consume this partition only' }),
    follow: Flags.boolean({
      char: 'f',
      description: 'keep waiting for new messages (until --limit, --idle or Ctrl-C)',
      default: false,
    }),
    limit: Flags.integer({ char: 'n', description: 'stop after this many messages', min: 1 }),
    batch: Flags.integer({ description: 'messages per pop', default: 100, min: 1, max: 10_000 }),
    'max-partitions': Flags.integer({
      description: 'partitions one pop may claim (not with --partition)',
      default: 1,
      min: 1,
      max: 1000,
    }),
    ack: Flags.boolean({
      aliases: ['auto-ack'],
      description:
        'acknowledge the messages after printing them (without it they are redelivered later; alias --auto-ack)',
      default: false,
    }),
    from: Flags.string({
      description:
        'where a new consumer group starts: all (the oldest message) or new (only later messages; new-only is the same)',
      options: ['all', 'new', 'new-only'],
    }),
    since: Flags.string({
      description: 'where a new consumer group starts: a time such as "1h ago", 2026-01-31 or RFC 3339',
    }),
    idle: Flags.custom<number>({ parse: (input) => Promise.resolve(parseIdleMs(input)) })({
      description:
        'stop after this long without a message: milliseconds (3000), or a duration such as 30s (waits like --follow)',
      exclusive: ['idle-millis'],
    }),
    'idle-millis': Flags.integer({
      description: 'stop after this many milliseconds without a message (the Go queenctl flag; same as --idle N)',
      min: 1,
    }),
    concurrency: Flags.integer({
      description:
        'pops in flight at once, each claiming its own partitions (the order within a partition holds; lines of different partitions interleave)',
      default: 1,
      min: 1,
      max: 64,
    }),
    conflation: Flags.boolean({
      description:
        "the Go queenctl's last-value delivery: refused (exit 1, nothing popped), this broker does not offer it; as in the Go CLI it needs --cg and excludes --auto-ack",
      default: false,
    }),
    timeout: Flags.custom<number>({ parse: (input) => Promise.resolve(parseDurationMs(input)) })({
      description:
        'longest single long-poll while waiting, e.g. 10s (default 10s, or the idle time when shorter); each request may take 30s more',
    }),
  }

  /** Always NDJSON: the loop's result is never printed as JSON. */
  override jsonEnabled(): boolean {
    return false
  }

  async run(): Promise<TailResult> {
    const { args, flags, metadata } = await this.parse(Tail)
    if (flags.conflation) {
      // The Go CLI wants the group named: its default (queenctl-tail) is shared, and conflation is a group's policy.
      refuseConflation('tail', { cgGiven: metadata.flags.cg?.setFromDefault !== true, autoAck: flags.ack })
    }
    // Always NDJSON whatever -o says, as in the Go queenctl, so pipelines compose.
    const out = new Output({ format: 'ndjson', color: false, quiet: flags.quiet, headers: false })
    // --timeout is the long-poll here; each request gets the default HTTP time on top.
    const client = await this.httpClient({ ...flags, timeout: DEFAULT_HTTP_TIMEOUT_MS })
    const stop = new AbortController()
    // The first Ctrl-C stops after the current batch; a second one gets Node's default (exit at once).
    const onSigint = () => stop.abort()
    process.once('SIGINT', onSigint)
    let result: TailResult
    try {
      result = await tail(client, {
        queue: args.queue,
        partition: flags.partition,
        consumerGroup: flags.cg,
        batch: flags.batch,
        maxPartitions: flags['max-partitions'],
        limit: flags.limit,
        follow: flags.follow,
        ack: flags.ack,
        fromMode: flags.from,
        since: flags.since,
        idleMs: flags.idle ?? flags['idle-millis'],
        pollMs: flags.timeout,
        concurrency: flags.concurrency,
        print: (rows) => out.write(ndjsonRows(rows)),
        onNote: (note) => out.note(note),
        onAckFailure: (failure) => out.warn(`ack of ${failure.transactionId} failed: ${failure.error}`),
        stop: stop.signal,
      })
    } finally {
      process.removeListener('SIGINT', onSigint)
    }
    if (result.ackFailed > 0) process.exitCode = EXIT.server
    else if (result.printed === 0 && result.end !== 'interrupted') this.exit(EXIT.noop)
    return result
  }
}
