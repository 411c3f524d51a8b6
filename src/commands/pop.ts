import { Args, Flags } from '@oclif/core'
import { EXIT, UserError } from '../cli/errors.js'
import { parseDurationMs } from '../cli/flags.js'
import { HttpCommand } from '../cli/http-command.js'
import { Output } from '../cli/output.js'
import { checkPopTarget, ndjsonRows, popFormat, popOnce, refuseConflation, type PoppedRow } from '../cli/pop.js'

/** Default `--timeout` (the long-poll): docs/cli.md, "Data-plane commands" (10 s). */
const DEFAULT_WAIT_MS = 10_000
/** The per-request HTTP time the global --timeout gives other commands; the long-poll is added to it. */
const DEFAULT_HTTP_TIMEOUT_MS = 30_000

export default class Pop extends HttpCommand {
  static override summary = 'Pop messages from a queue (or a namespace/task) and print them as NDJSON'
  static override description =
    'Pops up to --limit messages (default 1) in requests of --batch (each request leases the partitions it claims, so the next finds only others), long-polling up to --timeout for the first one, and prints one NDJSON line per message: {queue, partition, partitionId, transactionId, leaseId, consumerGroup, createdAt, retryCount, traceId, producerSub, data}, the shape ack --batch reads. With -o json (or --json) one array instead; every other format prints NDJSON. The messages stay leased until acked (queenctl ack) or the lease expires, unless --auto-ack settles them at delivery. Exit 4 when nothing was popped. --namespace/--task pop from any queue tagged with them (GET /api/v1/pop). --timeout is the long-poll time, as in the Go queenctl (--wait-timeout is an alias); each request may take 30 s more. --wait=false (or --no-wait) answers at once.'

  static override examples = [
    '<%= config.bin %> pop orders',
    '<%= config.bin %> pop orders --cg billing --limit 10 --batch 10',
    '<%= config.bin %> pop orders --partition eu --no-wait',
    '<%= config.bin %> pop orders --cg audit --from-mode new --timeout 30s',
    '<%= config.bin %> pop --namespace billing --task invoices --auto-ack --output json',
    '<%= config.bin %> pop orders --limit 100 > popped.ndjson && <%= config.bin %> ack --batch popped.ndjson',
  ]

  static override args = {
    queue: Args.string({ ignoreStdin: true, description: 'queue to pop from (omit with --namespace/--task)' }),
  }

  static override flags = {
    cg: Flags.string({ description: 'consumer group (default: queue mode, one competing set of consumers)' }),
    partition: Flags.string({ description: 'pop from this partition only (it is never created by a pop)' }),
    limit: Flags.integer({
      char: 'n',
      description: 'messages to pop in all (each request leases its partitions, so later ones find other partitions)',
      default: 1,
      min: 1,
    }),
    batch: Flags.integer({
      description: 'messages per request (default: --limit, at most 10000)',
      min: 1,
      max: 10_000,
    }),
    'max-partitions': Flags.integer({
      description: 'partitions one request may claim (not with --partition)',
      default: 1,
      min: 1,
      max: 1000,
    }),
    'auto-ack': Flags.boolean({
      description: 'settle the messages at delivery (at-most-once): nothing to ack, leaseId is empty',
      default: false,
    }),
    wait: Flags.boolean({
      description: 'long-poll until a message arrives or --timeout passes (--no-wait or --wait=false answers at once)',
      default: true,
      allowNo: true,
    }),
    timeout: Flags.custom<number>({ parse: (input) => Promise.resolve(parseDurationMs(input)) })({
      aliases: ['wait-timeout'],
      description:
        'how long to long-poll, e.g. 10s or 1500ms (at most 10m); the request may take 30s more (alias --wait-timeout)',
      default: DEFAULT_WAIT_MS,
      defaultHelp: () => Promise.resolve('10s'),
    }),
    namespace: Flags.string({ description: 'queueless pop: any queue of this namespace' }),
    task: Flags.string({ description: 'queueless pop: any queue of this task' }),
    'from-mode': Flags.string({
      description:
        'where a new consumer group starts: all (the oldest message) or new (only later messages; new-only is the same)',
      options: ['all', 'new', 'new-only'],
    }),
    since: Flags.string({
      description: 'where a new consumer group starts: a time such as "1h ago", 2026-01-31 or RFC 3339',
    }),
    conflation: Flags.boolean({
      description:
        "the Go queenctl's last-value delivery: refused (exit 1, nothing popped), this broker does not offer it; as in the Go CLI it needs --cg and excludes --auto-ack",
      default: false,
    }),
  }

  async run(): Promise<PoppedRow[]> {
    const { args, flags } = await this.parse(Pop)
    const format = popFormat(flags)
    const out = new Output({ format, color: false, quiet: flags.quiet, headers: false })
    const target = { queue: args.queue, partition: flags.partition, namespace: flags.namespace, task: flags.task }
    checkPopTarget(target)
    if (flags.conflation) refuseConflation('pop', { cgGiven: flags.cg !== undefined, autoAck: flags['auto-ack'] })
    if (flags.timeout > 600_000) {
      throw new UserError('--timeout: at most 10m (the broker long-polls up to 600000 ms)')
    }
    // --timeout is the long-poll here (as in the Go queenctl); each request gets the default HTTP time on top.
    const client = await this.httpClient({ ...flags, timeout: DEFAULT_HTTP_TIMEOUT_MS })
    const collected: PoppedRow[] = []
    let popped = 0
    for (let first = true; popped < flags.limit; first = false) {
      const answer = await popOnce(client, {
        ...target,
        consumerGroup: flags.cg,
        batch: Math.min(flags.batch ?? Math.min(flags.limit, 10_000), flags.limit - popped),
        maxPartitions: flags['max-partitions'],
        autoAck: flags['auto-ack'],
        // Only the first request waits: once messages came, the rest is taken as it is.
        waitMs: first && flags.wait ? flags.timeout : 0,
        fromMode: flags['from-mode'],
        since: flags.since,
      })
      if (answer.kind === 'empty') {
        // After messages came, a held lease is this pop's own: nothing to tell.
        if (answer.note && popped === 0) out.note(answer.note)
        break
      }
      popped += answer.rows.length
      if (format === 'json') collected.push(...answer.rows)
      else out.write(ndjsonRows(answer.rows))
    }
    if (popped === 0) this.exit(EXIT.noop)
    return collected
  }
}
