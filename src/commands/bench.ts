import { Flags } from '@oclif/core'
import { BENCH_COLUMNS, runBench, type BenchResult } from '../cli/bench.js'
import { HttpCommand } from '../cli/http-command.js'

export default class Bench extends HttpCommand {
  static override summary = 'A quick smoke load: push N messages, pop and ack them, print the rate of each phase'
  static override description =
    'Pushes --messages messages in batches of --batch into a fresh queue (a random queenctl-bench-* name unless --queue names one that does not exist), pops them back in batches (queue mode), acks each batch, then deletes the queue (--keep leaves it). One client, one request at a time unless --producers/--consumers ask for more: the figures show that the broker answers and roughly how fast from here, not what it can carry. The real benchmark, with concurrency, percentiles and the reliability checks, is npm run bench (docs/performance.md). Exit 2 when a push is not queued or messages do not come back.'

  static override examples = [
    '<%= config.bin %> bench',
    '<%= config.bin %> bench --messages 10000 --batch 500 --payload-bytes 1024 --partitions 4',
    '<%= config.bin %> bench --server http://queen.staging:6632 --messages 2000 --output json',
    '<%= config.bin %> bench --total 5000 --producers 4 --consumers 4 --payload-size 256',
  ]

  static override flags = {
    messages: Flags.integer({
      aliases: ['total'],
      description: 'messages to push and consume (alias --total)',
      default: 1000,
      min: 1,
      max: 1_000_000,
    }),
    producers: Flags.integer({ description: 'pushes in flight at once', default: 1, min: 1, max: 64 }),
    consumers: Flags.integer({ description: 'pop-and-ack loops at once', default: 1, min: 1, max: 64 }),
    batch: Flags.integer({ description: 'messages per push, pop and ack request', default: 100, min: 1, max: 10_000 }),
    'payload-bytes': Flags.integer({
      aliases: ['payload-size'],
      description: 'padding in each payload, bytes (alias --payload-size)',
      default: 64,
      min: 0,
      max: 1_048_576,
    }),
    partitions: Flags.integer({ description: 'partitions the messages are spread over', default: 1, min: 1, max: 100 }),
    queue: Flags.string({ description: 'queue to use; must not exist (default: a random queenctl-bench-* name)' }),
    keep: Flags.boolean({ description: 'keep the queue and its completed messages afterwards', default: false }),
  }

  async run(): Promise<BenchResult> {
    const { flags } = await this.parse(Bench)
    const out = this.output(flags)
    const client = await this.httpClient(flags)
    const result = await runBench(client, {
      queue: flags.queue,
      messages: flags.messages,
      batch: flags.batch,
      payloadBytes: flags['payload-bytes'],
      partitions: flags.partitions,
      keep: flags.keep,
      producers: flags.producers,
      consumers: flags.consumers,
    })
    out.list(result.phases, BENCH_COLUMNS)
    if (out.tabular) {
      out.note(
        `${result.server}, queue ${result.queue}${result.kept ? ' (kept)' : ' (deleted)'}, batch ${result.batch}, ${result.payloadBytes}-byte padding: one client, sequential requests; npm run bench is the real benchmark`,
      )
    }
    return result
  }
}
