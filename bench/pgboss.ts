/**
 * The peer on the same PostgreSQL: pg-boss 10 (the version Node 20 installs; docs/performance.md, "pg-boss") in schema
 * `pgboss`, maintenance and scheduling off so they do not run inside the measurement windows. One message
 * per call is `send()`, a batch is one `insert()`; consumers `fetch()` up to 100 and `complete()` them,
 * polling every 2 ms when idle (pg-boss has no long poll). Fan-out is one pg-boss queue per consumer group,
 * filled by one `insert()` carrying the batch for every group.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import PgBoss from 'pg-boss'
import pg from 'pg'
import {
  deliveryOf,
  type Adapter,
  type BenchConsumer,
  type BenchQueue,
  type ConsumerOptions,
  type Delivery,
  type OutgoingMessage,
  type QueueSpec,
  type ScenarioId,
} from './adapter.js'
import { sleep } from './measure.js'
import type { PgConnection } from './postgres.js'
import { chunks, seedPayloadSql } from './seed.js'

const SCHEMA = 'pgboss'
const IDLE_POLL_MS = 2
/** Backlog rows per INSERT (the column defaults are pg-boss's own: state created, start now, ...). */
const SEED_CHUNK = 200_000

interface BossDelivery extends Delivery {
  jobId: string
}

function bossVersion(): string {
  try {
    const file = createRequire(import.meta.url).resolve('pg-boss/package.json')
    return (JSON.parse(readFileSync(file, 'utf8')) as { version?: string }).version ?? '?'
  } catch {
    return '?'
  }
}

class BossConsumer implements BenchConsumer {
  private readonly boss: PgBoss
  private readonly queue: string
  private readonly options: ConsumerOptions

  constructor(boss: PgBoss, queue: string, options: ConsumerOptions) {
    this.boss = boss
    this.queue = queue
    this.options = options
  }

  async next(signal?: AbortSignal): Promise<Delivery[]> {
    const deadline = performance.now() + this.options.waitMs
    while (!signal?.aborted) {
      const jobs = await this.boss.fetch<unknown>(this.queue, { batchSize: this.options.batch })
      if (jobs.length > 0) return jobs.map((job): BossDelivery => deliveryOf(job.data, { jobId: job.id }))
      if (performance.now() >= deadline) break
      await sleep(IDLE_POLL_MS, signal)
    }
    return []
  }

  async ack(deliveries: readonly Delivery[]): Promise<number> {
    const ids = (deliveries as readonly BossDelivery[]).map((delivery) => delivery.jobId)
    if (ids.length > 0) await this.boss.complete(this.queue, ids)
    return 0
  }

  close(): Promise<void> {
    return Promise.resolve()
  }
}

class BossQueue implements BenchQueue {
  private readonly boss: PgBoss
  private readonly sql: pg.Pool
  /** One pg-boss queue per consumer group (one in queue mode). */
  private readonly queues: Map<string | undefined, string>

  constructor(boss: PgBoss, sql: pg.Pool, queues: Map<string | undefined, string>) {
    this.boss = boss
    this.sql = sql
    this.queues = queues
  }

  async push(messages: readonly OutgoingMessage[]): Promise<boolean[]> {
    const names = [...this.queues.values()]
    const first = messages[0]
    if (messages.length === 1 && names.length === 1 && first && names[0]) {
      const id = await this.boss.send(names[0], first.payload)
      return [id !== null]
    }
    await this.boss.insert(names.flatMap((name) => messages.map((message) => ({ name, data: message.payload }))))
    return messages.map(() => true)
  }

  consumer(options: ConsumerOptions): BenchConsumer {
    const queue = this.queues.get(options.group)
    if (!queue) throw new Error(`pg-boss: no queue for group ${options.group ?? '(queue mode)'}`)
    return new BossConsumer(this.boss, queue, options)
  }

  async readBack(onMessage: (producer: number, seq: number) => void, _done: () => boolean, _deadline: number) {
    const name = [...this.queues.values()][0]
    const result = await this.sql.query<{ producer: number; seq: number }>(
      `SELECT (data->>'producer')::int AS producer, (data->>'seq')::int AS seq FROM ${SCHEMA}.job WHERE name = $1`,
      [name],
    )
    for (const row of result.rows) onMessage(row.producer, row.seq)
  }

  /** Seeds every group's queue (fan-out stores one job per group, as push does). */
  async seedBacklog(first: number, count: number): Promise<void> {
    for (const name of this.queues.values()) {
      for (const [from, to] of chunks(first, count, SEED_CHUNK)) {
        await this.sql.query(
          `INSERT INTO ${SCHEMA}.job (name, data) SELECT $1::text, ${seedPayloadSql('g')}
           FROM generate_series($2::bigint, $3::bigint) AS g ORDER BY g`,
          [name, from, to],
        )
      }
    }
  }

  close(): Promise<void> {
    // Kept, like ours: each queue is its own partition of pgboss.job, so old ones cost later runs nothing
    // (and pg-boss 10.4.2's deleteQueue fails while the queue still has jobs).
    return Promise.resolve()
  }
}

/** pg-boss in this process, on the benchmark's PostgreSQL. */
export class PgBossAdapter implements Adapter {
  readonly name = 'pg-boss' as const
  readonly role = 'peer' as const
  readonly label = `pg-boss ${bossVersion()}`
  private readonly boss: PgBoss
  private readonly sql: pg.Pool
  private readonly errors: string[] = []

  private constructor(boss: PgBoss, sql: pg.Pool) {
    this.boss = boss
    this.sql = sql
    boss.on('error', (error) => {
      if (this.errors.length < 20) this.errors.push(error.message)
    })
  }

  static async start(connection: PgConnection): Promise<PgBossAdapter> {
    const boss = new PgBoss({ ...connection, schema: SCHEMA, max: 48, schedule: false, supervise: false })
    const adapter = new PgBossAdapter(boss, new pg.Pool({ ...connection, max: 2 }))
    await boss.start()
    return adapter
  }

  supports(scenario: ScenarioId): boolean {
    // pg-boss has no partitions; cli-push measures queenctl, which only talks to ours; every other scenario
    // has a pg-boss equivalent.
    return scenario !== 'partitions' && scenario !== 'cli-push'
  }

  brokerPid(): number | undefined {
    return undefined
  }

  async openQueue(spec: QueueSpec): Promise<BenchQueue> {
    const groups: (string | undefined)[] = spec.groups.length > 0 ? [...spec.groups] : [undefined]
    const queues = new Map<string | undefined, string>()
    for (const group of groups) {
      const name = group === undefined ? spec.name : `${spec.name}_${group}`
      await this.boss.createQueue(name)
      queues.set(group, name)
    }
    return new BossQueue(this.boss, this.sql, queues)
  }

  /** Errors pg-boss emitted, for the report. */
  emittedErrors(): string[] {
    return [...this.errors]
  }

  async stop(): Promise<void> {
    await this.boss.stop({ graceful: false, wait: true })
    await this.sql.end()
  }
}
