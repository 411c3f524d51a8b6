/**
 * The ceiling: the same work done with `pg` directly on the same PostgreSQL, no HTTP and no broker
 * (docs/performance.md, "The raw-SQL ceiling"). Tables in the shape of the cursor model (an append-only log and one
 * cursor/lease row per partition and group) in schema `bench_ceiling`; batched insert of 100 via `unnest`; pop = take
 * the lease only when a newer row exists (empty polls stay read-only) and read the next 100; ack = advance the cursor
 * and clear the lease.
 *
 * The cursor is the row id alone, and pushes to one partition are serialised here (one writer per
 * partition): ids then commit in order within a partition, which avoids both traps of docs/performance.md, "Traps of
 * PostgreSQL queues" (a `timestamptz` cursor truncated to ms by node-pg; concurrent writers committing out of key
 * order).
 */
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
import { chunks, SEED_PRODUCER, seedPayloadSql } from './seed.js'

const SCHEMA_SQL = `
DROP SCHEMA IF EXISTS bench_ceiling CASCADE;
CREATE SCHEMA bench_ceiling;
CREATE TABLE bench_ceiling.msg_log (
  id bigserial PRIMARY KEY,
  partition_id int NOT NULL,
  transaction_id text NOT NULL,
  payload jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX msg_log_partition_id ON bench_ceiling.msg_log (partition_id, id);
CREATE TABLE bench_ceiling.partition_consumers (
  partition_id int NOT NULL,
  consumer_group text NOT NULL,
  last_id bigint NOT NULL DEFAULT 0,
  lease_until timestamptz,
  total_consumed bigint NOT NULL DEFAULT 0,
  updated_at timestamptz,
  PRIMARY KEY (partition_id, consumer_group)
) WITH (fillfactor = 70);
`

const INSERT_ONE = `INSERT INTO bench_ceiling.msg_log (partition_id, transaction_id, payload) VALUES ($1, $2, $3)`
const INSERT_BATCH = `INSERT INTO bench_ceiling.msg_log (partition_id, transaction_id, payload)
  SELECT $1, t, p FROM unnest($2::text[], $3::jsonb[]) AS u(t, p)`
const POP = `WITH c AS (
    UPDATE bench_ceiling.partition_consumers pc SET lease_until = now() + interval '30 seconds'
     WHERE pc.partition_id = $1 AND pc.consumer_group = $2
       AND (pc.lease_until IS NULL OR pc.lease_until < now())
       AND EXISTS (SELECT 1 FROM bench_ceiling.msg_log m WHERE m.partition_id = $1 AND m.id > pc.last_id)
    RETURNING pc.last_id)
  SELECT m.id, m.payload FROM c CROSS JOIN LATERAL (
    SELECT id, payload FROM bench_ceiling.msg_log WHERE partition_id = $1 AND id > c.last_id ORDER BY id LIMIT $3) m`
const ACK = `UPDATE bench_ceiling.partition_consumers
  SET last_id = $3, lease_until = NULL, total_consumed = total_consumed + $4, updated_at = now()
  WHERE partition_id = $1 AND consumer_group = $2`
const SEED = `INSERT INTO bench_ceiling.msg_log (partition_id, transaction_id, payload)
  SELECT $1::int + (g % $2::int), $3::text || '.${SEED_PRODUCER}.' || g, ${seedPayloadSql('g')}
  FROM generate_series($4::bigint, $5::bigint) AS g ORDER BY g`
const SEED_CHUNK = 500_000
const READ_BACK = `SELECT id, transaction_id FROM bench_ceiling.msg_log
  WHERE partition_id = $1 AND id > $2 ORDER BY id LIMIT 20000`

/** Consumer group name of queue mode. */
const QUEUE_MODE = '__queue__'
/** Partition ids of successive queues are this far apart, so every queue starts on fresh partitions. */
const PARTITION_STRIDE = 100_000
const IDLE_POLL_MS = 2

interface CeilingDelivery extends Delivery {
  partition: number
  id: string
}

/** "<tag>.<producer>.<seq>" to producer and seq. */
function idNumbers(id: string): { producer: number; seq: number } {
  const last = id.lastIndexOf('.')
  const middle = id.lastIndexOf('.', last - 1)
  return { producer: Number(id.slice(middle + 1, last)), seq: Number(id.slice(last + 1)) }
}

class CeilingConsumer implements BenchConsumer {
  private readonly pool: pg.Pool
  private readonly group: string
  private readonly owned: number[]
  private readonly options: ConsumerOptions
  private turn = 0

  constructor(pool: pg.Pool, owned: number[], options: ConsumerOptions) {
    this.pool = pool
    this.group = options.group ?? QUEUE_MODE
    this.owned = owned
    this.options = options
  }

  async next(signal?: AbortSignal): Promise<Delivery[]> {
    const deadline = performance.now() + this.options.waitMs
    while (!signal?.aborted) {
      for (let tried = 0; tried < this.owned.length; tried++) {
        const partition = this.owned[this.turn++ % this.owned.length] ?? 0
        const result = await this.pool.query<{ id: string; payload: unknown }>({
          name: 'ceiling-pop',
          text: POP,
          values: [partition, this.group, this.options.batch],
        })
        if (result.rows.length > 0) {
          return result.rows.map((row): CeilingDelivery => deliveryOf(row.payload, { partition, id: row.id }))
        }
      }
      if (performance.now() >= deadline) break
      await sleep(IDLE_POLL_MS, signal)
    }
    return []
  }

  async ack(deliveries: readonly Delivery[]): Promise<number> {
    const items = deliveries as readonly CeilingDelivery[]
    const last = items[items.length - 1]
    if (!last) return 0
    const result = await this.pool.query({
      name: 'ceiling-ack',
      text: ACK,
      values: [last.partition, this.group, last.id, items.length],
    })
    return result.rowCount === 1 ? 0 : items.length
  }

  close(): Promise<void> {
    return Promise.resolve()
  }
}

class CeilingQueue implements BenchQueue {
  private readonly pool: pg.Pool
  private readonly base: number
  private readonly spec: QueueSpec
  /** The tail of each partition's push chain: one writer per partition (see the file comment). */
  private readonly writers = new Map<number, Promise<unknown>>()

  constructor(pool: pg.Pool, base: number, spec: QueueSpec) {
    this.pool = pool
    this.base = base
    this.spec = spec
  }

  async push(messages: readonly OutgoingMessage[]): Promise<boolean[]> {
    const byPartition = new Map<number, OutgoingMessage[]>()
    for (const message of messages) {
      const list = byPartition.get(message.partition) ?? []
      list.push(message)
      byPartition.set(message.partition, list)
    }
    await Promise.all([...byPartition].map(([partition, list]) => this.write(this.base + partition, list)))
    return messages.map(() => true)
  }

  /** Appends to the partition's chain, so one partition has one writer at a time. */
  private write(id: number, messages: readonly OutgoingMessage[]): Promise<void> {
    const previous = this.writers.get(id) ?? Promise.resolve()
    const write = previous.then(() => this.insert(id, messages))
    const tail = write.catch(() => undefined)
    this.writers.set(id, tail)
    void tail.then(() => {
      if (this.writers.get(id) === tail) this.writers.delete(id)
    })
    return write
  }

  private async insert(partition: number, messages: readonly OutgoingMessage[]): Promise<void> {
    const first = messages[0]
    if (messages.length === 1 && first) {
      await this.pool.query({
        name: 'ceiling-insert-one',
        text: INSERT_ONE,
        values: [partition, first.id, JSON.stringify(first.payload)],
      })
    } else {
      await this.pool.query({
        name: 'ceiling-insert-batch',
        text: INSERT_BATCH,
        values: [partition, messages.map((m) => m.id), messages.map((m) => JSON.stringify(m.payload))],
      })
    }
  }

  consumer(options: ConsumerOptions): BenchConsumer {
    const owned: number[] = []
    for (let p = options.index; p < this.spec.partitions; p += options.count) owned.push(this.base + p)
    return new CeilingConsumer(this.pool, owned, options)
  }

  async readBack(onMessage: (producer: number, seq: number) => void, done: () => boolean, deadline: number) {
    for (let p = 0; p < this.spec.partitions && !done() && performance.now() < deadline; p++) {
      let after = '0'
      for (;;) {
        const result = await this.pool.query<{ id: string; transaction_id: string }>(READ_BACK, [this.base + p, after])
        for (const row of result.rows) {
          const { producer, seq } = idNumbers(row.transaction_id)
          onMessage(producer, seq)
        }
        const last = result.rows[result.rows.length - 1]
        if (!last) break
        after = last.id
      }
    }
  }

  async seedBacklog(first: number, count: number): Promise<void> {
    for (const [from, to] of chunks(first, count, SEED_CHUNK)) {
      await this.pool.query(SEED, [this.base, this.spec.partitions, this.spec.name, from, to])
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.writers.values())
  }
}

/** The raw-SQL ceiling. */
export class CeilingAdapter implements Adapter {
  readonly name = 'ceiling' as const
  readonly role = 'ceiling' as const
  readonly label = 'raw SQL (pg, cursor model)'
  private readonly pool: pg.Pool
  private queues = 0

  private constructor(pool: pg.Pool) {
    this.pool = pool
  }

  /** Recreates schema `bench_ceiling` and opens a pool large enough for every scenario's clients. */
  static async start(connection: PgConnection): Promise<CeilingAdapter> {
    // Custom plans: a statement first planned against an empty table must not keep a generic plan (docs/performance.md,
    // "Traps of PostgreSQL queues").
    const pool = new pg.Pool({ ...connection, max: 48, options: '-c plan_cache_mode=force_custom_plan' })
    await pool.query(SCHEMA_SQL)
    return new CeilingAdapter(pool)
  }

  supports(scenario: ScenarioId): boolean {
    // 10 000 partitions would need a consumer design of their own (which partition to poll); the ceiling
    // for that scenario is the push and drain rows. cli-push measures queenctl, which only talks to ours.
    return scenario !== 'partitions' && scenario !== 'cli-push'
  }

  brokerPid(): number | undefined {
    return undefined
  }

  async openQueue(spec: QueueSpec): Promise<BenchQueue> {
    const base = ++this.queues * PARTITION_STRIDE
    const groups = spec.groups.length > 0 ? [...spec.groups] : [QUEUE_MODE]
    await this.pool.query(
      `INSERT INTO bench_ceiling.partition_consumers (partition_id, consumer_group)
       SELECT $1 + p, g FROM generate_series(0, $2 - 1) AS p, unnest($3::text[]) AS g`,
      [base, spec.partitions, groups],
    )
    return new CeilingQueue(this.pool, base, spec)
  }

  async stop(): Promise<void> {
    await this.pool.end()
  }
}
