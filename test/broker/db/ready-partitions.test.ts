/**
 * The ready index of wildcard pops (schema 015, docs/scale.md): pushes stamp partitions, a pop absorbs the
 * partitions stamped since its group's horizon, and no message is missed when pushes commit out of order,
 * when a consumer row is locked while its partition is absorbed, or when a group starts over.
 */
import { describe, expect, it } from 'vitest'
import { randomUUID } from 'node:crypto'
import pg from 'pg'
import { databaseConnection, useTestDatabase } from '../../support/database.js'

const testDatabase = useTestDatabase('ready')
const QUEUE_MODE = '__QUEUE_MODE__'

interface Item {
  partition: string
  tx: string
}

async function pushTo(db: pg.ClientBase, queue: string, items: Item[]): Promise<void> {
  const rows = items.map((item, i) => ({ i, q: queue, p: item.partition, id: randomUUID(), tx: item.tx, pl: {} }))
  await db.query('SELECT * FROM queen.push_messages($1, $2::jsonb)', ['', JSON.stringify(rows)])
}

async function queueId(queue: string): Promise<string> {
  const found = await testDatabase.client().query('SELECT id FROM queen.queues WHERE name = $1', [queue])
  return found.rows[0].id
}

interface Popped {
  lease: string
  rows: { partition_id: string; partition_name: string; transaction_id: string }[]
}

/** One wildcard pop; `db` defaults to the file's connection (autocommit). */
async function popWildcard(
  queue: string,
  options: { group?: string; batch?: number; partitions?: number; db?: pg.ClientBase } = {},
): Promise<Popped> {
  const lease = randomUUID()
  const answer = await (options.db ?? testDatabase.client()).query(
    'SELECT * FROM queen.pop_messages($1, NULL, $2, $3, $4, $5, false, NULL, NULL)',
    [await queueId(queue), options.group ?? QUEUE_MODE, options.batch ?? 100, options.partitions ?? 100, lease],
  )
  return { lease, rows: answer.rows.filter((row) => row.kind === 'message') }
}

/** Acks a whole pop as completed. */
async function ackAll(popped: Popped, group = QUEUE_MODE): Promise<void> {
  const byPartition = new Map<string, string[]>()
  for (const row of popped.rows)
    byPartition.set(row.partition_id, [...(byPartition.get(row.partition_id) ?? []), row.transaction_id])
  const pids = [...byPartition.keys()]
  const answer = await testDatabase
    .client()
    .query('SELECT * FROM queen.ack_leases_drained($1::uuid[], $2::text[], $3::uuid[], $4::integer[], $5::text[])', [
      pids,
      pids.map(() => group),
      pids.map(() => popped.lease),
      pids.map((pid) => byPartition.get(pid)!.length),
      pids.flatMap((pid) => byPartition.get(pid)!),
    ])
  expect(answer.rows.every((row) => row.applied)).toBe(true)
}

/** Pops and acks until a pop finds nothing; returns every transaction id delivered, in delivery order. */
async function drain(queue: string, group = QUEUE_MODE): Promise<string[]> {
  const seen: string[] = []
  for (;;) {
    const popped = await popWildcard(queue, { group })
    if (popped.rows.length === 0) return seen
    seen.push(...popped.rows.map((row) => row.transaction_id))
    await ackAll(popped, group)
  }
}

async function connect(): Promise<pg.Client> {
  const database = (await testDatabase.client().query('SELECT current_database() AS name')).rows[0].name
  const client = new pg.Client(databaseConnection(database))
  await client.connect()
  return client
}

describe('the ready index of wildcard pops', () => {
  it('delivers every message of a queue whose partitions outnumber one absorption, to a group that came later', async () => {
    // 2,500 partitions: more than one call of queen.absorb_pushes takes (2,000).
    const items = Array.from({ length: 2500 }, (_, n) => ({ partition: `p${n}`, tx: `m${n}` }))
    for (let from = 0; from < items.length; from += 500)
      await pushTo(testDatabase.client(), 'wide', items.slice(from, from + 500))
    expect((await drain('wide')).sort()).toEqual(items.map((item) => item.tx).sort())
    // A named group arriving after everything was pushed (and consumed in queue mode) still gets all of it.
    expect((await drain('wide', 'late')).sort()).toEqual(items.map((item) => item.tx).sort())
    expect((await popWildcard('wide', { group: 'late' })).rows).toEqual([])
  })

  it('finds a push that committed after later pushes were absorbed (an older transaction holds the horizon)', async () => {
    await pushTo(testDatabase.client(), 'late-commit', [{ partition: 'warm', tx: 'w0' }])
    expect((await drain('late-commit')).length).toBe(1)
    const slow = await connect()
    try {
      // The slow push starts first (its transaction id is the older one) and commits last.
      await slow.query('BEGIN')
      await pushTo(slow, 'late-commit', [{ partition: 'slow', tx: 's0' }])
      await pushTo(testDatabase.client(), 'late-commit', [{ partition: 'fast', tx: 'f0' }])
      expect(await drain('late-commit')).toEqual(['f0'])
      await slow.query('COMMIT')
      expect(await drain('late-commit')).toEqual(['s0'])
    } finally {
      await slow.end()
    }
  })

  it('absorbs later a partition whose consumer row another pop held while its push was absorbed', async () => {
    await pushTo(testDatabase.client(), 'held', [
      { partition: 'a', tx: 'a0' },
      { partition: 'b', tx: 'b0' },
    ])
    const first = await popWildcard('held', { batch: 10, partitions: 10 })
    expect(first.rows.map((row) => row.transaction_id).sort()).toEqual(['a0', 'b0'])
    await ackAll(first)
    const holder = await connect()
    try {
      // Another transaction holds partition a's consumer row (as a running pop or ack would) while a push to
      // a is absorbed by a pop that then finds only b's message.
      await holder.query('BEGIN')
      await holder.query(
        `SELECT 1 FROM queen.consumers k JOIN queen.partitions p ON p.id = k.partition_id
         WHERE p.name = 'a' AND p.queue_id = $1 FOR UPDATE OF k`,
        [await queueId('held')],
      )
      await pushTo(testDatabase.client(), 'held', [
        { partition: 'a', tx: 'a1' },
        { partition: 'b', tx: 'b1' },
      ])
      expect(await drain('held')).toEqual(['b1'])
      await holder.query('COMMIT')
      expect(await drain('held')).toEqual(['a1'])
    } finally {
      await holder.end()
    }
  })

  it('takes a partition out of the candidates when its messages are gone and puts it back on the next push', async () => {
    await pushTo(testDatabase.client(), 'ghost', [{ partition: 'x', tx: 'x0' }])
    const qid = await queueId('ghost')
    // The message disappears without moving the cursor: the pop looks once, then the row leaves the index.
    await testDatabase
      .client()
      .query('DELETE FROM queen.messages m USING queen.partitions p WHERE p.id = m.partition_id AND p.queue_id = $1', [
        qid,
      ])
    expect((await popWildcard('ghost')).rows).toEqual([])
    const ready = await testDatabase
      .client()
      .query('SELECT count(*)::int AS n FROM queen.consumers WHERE queue_id = $1 AND ready_to > cursor_position', [qid])
    expect(ready.rows[0].n).toBe(0)
    await pushTo(testDatabase.client(), 'ghost', [{ partition: 'x', tx: 'x1' }])
    expect(await drain('ghost')).toEqual(['x1'])
  })

  describe('the scan bound (pops read candidates from a key at or below every ready row)', () => {
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

    /** Drains `queue` for group g, then lets a pop raise the bound past every key: nothing is ready. */
    async function drainAndRaise(queue: string): Promise<void> {
      await drain(queue, 'g')
      // The bound rises at most every 100 ms, by a pop.
      await sleep(150)
      expect((await popWildcard(queue, { group: 'g' })).rows).toEqual([])
      const bound = await testDatabase
        .client()
        .query(
          `SELECT scan_from_at::text AS at FROM queen.ready_horizons WHERE queue_id = $1 AND consumer_group = 'g'`,
          [await queueId(queue)],
        )
      expect(bound.rows).toEqual([{ at: 'infinity' }])
    }

    it('finds partitions a seek made ready again below the bound', async () => {
      await pushTo(testDatabase.client(), 'rewind', [
        { partition: 'a', tx: 'a0' },
        { partition: 'b', tx: 'b0' },
      ])
      await drainAndRaise('rewind')
      await testDatabase
        .client()
        .query(`SELECT * FROM queen.seek_consumer_group('', 'rewind', 'g', NULL, false, '-infinity'::timestamptz)`)
      expect((await drain('rewind', 'g')).sort()).toEqual(['a0', 'b0'])
    })

    it('finds a message a DLQ retry made deliverable again below the bound', async () => {
      await pushTo(testDatabase.client(), 'requeue', [{ partition: 'a', tx: 'a0' }])
      const popped = await popWildcard('requeue', { group: 'g' })
      const pid = popped.rows[0]!.partition_id
      await testDatabase
        .client()
        .query('SELECT * FROM queen.ack_messages($1::jsonb)', [
          JSON.stringify([{ i: 0, t: '', pid, tx: 'a0', g: 'g', l: popped.lease, st: 'dlq', err: 'bad' }]),
        ])
      await drainAndRaise('requeue')
      await testDatabase
        .client()
        .query(`SELECT * FROM queen.retry_message('', $1, 'a0', 'g', $2, 'unused')`, [pid, randomUUID()])
      // Redelivered (its per-message state now says 0 failures, so the whole-lease ack path does not apply).
      expect((await popWildcard('requeue', { group: 'g' })).rows.map((row) => row.transaction_id)).toEqual(['a0'])
    })

    it('finds a row a specific-partition pop created without serving it', async () => {
      await pushTo(testDatabase.client(), 'aside', [{ partition: 'a', tx: 'a0' }])
      await drainAndRaise('aside')
      const qid = await queueId('aside')
      await testDatabase.client().query('UPDATE queen.queues SET delayed_processing_seconds = 1 WHERE id = $1', [qid])
      await pushTo(testDatabase.client(), 'aside', [{ partition: 'b', tx: 'b0' }])
      // The partition pop creates the group's row on b and finds its only message too young to deliver.
      const pid = (
        await testDatabase.client().query(`SELECT id FROM queen.partitions WHERE queue_id = $1 AND name = 'b'`, [qid])
      ).rows[0].id
      const specific = await testDatabase
        .client()
        .query(`SELECT * FROM queen.pop_messages($1, $2, 'g', 10, 1, $3, false, NULL, NULL)`, [qid, pid, randomUUID()])
      expect(specific.rows).toEqual([])
      await sleep(1100)
      expect(await drain('aside', 'g')).toEqual(['b0'])
    })
  })

  it('serves a whole queue to concurrent pops exactly once while pushes keep arriving', async () => {
    const partitions = 300
    const rounds = 20
    const consumers = await Promise.all(Array.from({ length: 4 }, () => connect()))
    const delivered: string[] = []
    let pushing = true
    try {
      const producer = (async () => {
        for (let round = 0; round < rounds; round++) {
          const items = Array.from({ length: partitions }, (_, n) => ({
            partition: `p${(n * 7 + round) % partitions}`,
            tx: `r${round}-${n}`,
          }))
          await pushTo(testDatabase.client(), 'busy', items)
        }
        pushing = false
      })()
      const consume = async (db: pg.Client) => {
        for (let idle = 0; idle < 3;) {
          const popped = await popWildcard('busy', { batch: 50, partitions: 25, db })
          if (popped.rows.length === 0) {
            if (!pushing) idle++
            await new Promise((resolve) => setTimeout(resolve, 5))
            continue
          }
          idle = 0
          delivered.push(...popped.rows.map((row) => row.transaction_id))
          await ackAll(popped)
        }
      }
      await pushTo(testDatabase.client(), 'busy', [{ partition: 'p0', tx: 'first' }])
      await Promise.all([producer, ...consumers.map(consume)])
    } finally {
      await Promise.all(consumers.map((db) => db.end()))
    }
    const expected = [
      'first',
      ...Array.from({ length: rounds * partitions }, (_, k) => `r${Math.floor(k / partitions)}-${k % partitions}`),
    ]
    const twice = delivered.filter((tx, index) => delivered.indexOf(tx) !== index)
    expect(twice).toEqual([])
    expect([...delivered].sort()).toEqual(expected.sort())
  })
})
