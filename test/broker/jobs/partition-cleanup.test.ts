// Inactive-partition cleanup in the retention cycle (docs/semantics.md, "Retention, eviction and cleanup",
// docs/reliability.md, "Hazards", H29: cleanup versus push): what is deleted, what is kept, and pushes racing the
// cleanup are never lost.
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { http, startTestBroker, type TestBroker } from '../../support/broker.js'
import { ack, configure, numbers, pop, push, pushMany, sleep } from '../../support/queen.js'
import { databaseConnection } from '../../support/database.js'
import { ageMessages, history, housekeepingFor, type Maintenance } from './housekeeping-support.js'

let broker: TestBroker
let jobs: Maintenance
beforeAll(async () => {
  broker = await startTestBroker({ label: 'partition_cleanup' })
  jobs = housekeepingFor(broker, { partitionCleanupDays: 0 })
})
afterAll(async () => {
  await jobs.close()
  await broker.close()
})

async function partitionNames(queue: string): Promise<string[]> {
  const rows = await broker.db.query<{ name: string }>(
    `SELECT p.name FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = $1 ORDER BY 1`,
    [queue],
  )
  return rows.rows.map((row) => row.name)
}

async function consumerRows(queue: string): Promise<number> {
  const rows = await broker.db.query(
    `SELECT 1 FROM queen.consumers c JOIN queen.queues q ON q.id = c.queue_id WHERE q.name = $1`,
    [queue],
  )
  return rows.rowCount ?? 0
}

describe('inactive partitions', () => {
  it('deletes empty idle partitions with their consumer rows; keeps Default, DLQ copies, dedup entries, leases', async () => {
    const queue = 'pc-basic'
    await configure(broker, queue, {
      retentionEnabled: true,
      retentionSeconds: 10,
      dedupWindowSeconds: 0,
      deadLetterQueue: true,
      retryLimit: 0,
    })
    await push(broker, [{ queue, payload: { n: 0 } }])
    for (const partition of ['a', 'b', 'c', 'leased']) await pushMany(broker, queue, partition, 1)
    await ack(broker, (await pop(broker, queue, { batch: 1 }, 'a')).messages[0])
    await ack(broker, (await pop(broker, queue, { batch: 1 }, 'b')).messages[0], { status: 'failed' })
    await ack(broker, (await pop(broker, queue, { batch: 1 }, 'leased')).messages[0])
    await ageMessages(broker, queue, 60)
    // A lease on a partition whose messages are all settled and about to go.
    await broker.db.query(
      `UPDATE queen.consumers c SET lease_id = gen_random_uuid(), lease_expires_at = now() + interval '1 minute'
       FROM queen.partitions p WHERE p.id = c.partition_id AND p.name = 'leased'`,
    )

    jobs.drain()
    await jobs.retention.runOnce()
    expect(jobs.drain()).toEqual({ retention: 5, partitions: 2 })
    // Default stays; b keeps its DLQ payload copy (GET /dlq and retry need the partition); the lease holds.
    expect(await partitionNames(queue)).toEqual(['Default', 'b', 'leased'])
    expect(await history(broker, queue)).toEqual({ retention: 5, partitions: 2 })
    const dead = await http(broker, 'GET', `/api/v1/dlq?queue=${queue}`)
    expect(dead.body.messages).toEqual([expect.objectContaining({ partition: 'b', data: { n: 0 } })])

    // A push to a deleted partition simply creates it again.
    await pushMany(broker, queue, 'a', 1, 7)
    expect(numbers(await pop(broker, queue, { batch: 10 }, 'a'))).toEqual([7])
  })

  it('keeps a partition while a dedup entry of it is inside the window', async () => {
    const queue = 'pc-dedup'
    await configure(broker, queue, { retentionEnabled: true, retentionSeconds: 10, dedupWindowSeconds: 3600 })
    await push(broker, [{ queue, partition: 'p', transactionId: 'keep-me', payload: { n: 0 } }])
    await ageMessages(broker, queue, 60)
    await jobs.retention.runOnce()
    expect(await partitionNames(queue)).toEqual(['Default', 'p'])
    const [again] = await push(broker, [{ queue, partition: 'p', transactionId: 'keep-me', payload: { n: 1 } }])
    expect(again.status).toBe('duplicate')
  })

  it('waits PARTITION_CLEANUP_DAYS of inactivity', async () => {
    const patient = housekeepingFor(broker, { partitionCleanupDays: 30 })
    try {
      const queue = 'pc-days'
      await configure(broker, queue, { dedupWindowSeconds: 0 })
      await pushMany(broker, queue, 'p', 1)
      await ack(broker, (await pop(broker, queue, { batch: 1 })).messages[0])
      await http(broker, 'DELETE', `/api/v1/queues/${queue}/clear`)
      await patient.retention.runOnce()
      expect(await partitionNames(queue)).toEqual(['Default', 'p'])
      await broker.db.query(
        `UPDATE queen.partitions p SET last_activity_at = now() - interval '31 days'
         FROM queen.queues q WHERE q.id = p.queue_id AND q.name = $1`,
        [queue],
      )
      await patient.retention.runOnce()
      expect(patient.drain()).toEqual({ partitions: 1 })
      expect(await partitionNames(queue)).toEqual(['Default'])
      expect(await consumerRows(queue)).toBe(0)
    } finally {
      await patient.close()
    }
  })
})

describe('cleanup versus push', () => {
  it('a push waiting on a partition being deleted lands in a new partition', async () => {
    const queue = 'pc-wait'
    await configure(broker, queue, { dedupWindowSeconds: 0 })
    await pushMany(broker, queue, 'p', 1)
    await http(broker, 'DELETE', `/api/v1/queues/${queue}/clear`)
    const client = new pg.Client(databaseConnection(broker.database))
    await client.connect()
    try {
      await client.query('BEGIN')
      const cleaned = await client.query(`SELECT * FROM queen.retention_cleanup_partitions(0, 1000)`)
      expect(cleaned.rows).toEqual([expect.objectContaining({ queue_name: queue, deleted: 1 })])
      // The push waits for the deleted row's lock, then creates the partition again.
      const pushing = push(broker, [{ queue, partition: 'p', payload: { n: 1 } }])
      await sleep(200)
      await client.query('COMMIT')
      const [result] = await pushing
      expect(result.status).toBe('queued')
      expect(numbers(await pop(broker, queue, { batch: 10 }, 'p'))).toEqual([1])
    } finally {
      await client.end()
    }
  })

  it('a partition a running push holds is skipped', async () => {
    const queue = 'pc-held'
    await configure(broker, queue, { dedupWindowSeconds: 0 })
    await pushMany(broker, queue, 'p', 1)
    await http(broker, 'DELETE', `/api/v1/queues/${queue}/clear`)
    const client = new pg.Client(databaseConnection(broker.database))
    await client.connect()
    try {
      await client.query('BEGIN')
      const [queued] = (
        await client.query(`SELECT * FROM queen.push_messages('', $1::jsonb)`, [
          JSON.stringify([
            { i: 0, q: queue, p: 'p', id: '01900000-0000-7000-8000-000000000001', tx: 't', pl: { n: 2 } },
          ]),
        ])
      ).rows
      expect(queued.status).toBe('queued')
      jobs.drain()
      await jobs.retention.runOnce()
      expect(jobs.drain()).toEqual({})
      await client.query('COMMIT')
      expect(numbers(await pop(broker, queue, { batch: 10 }, 'p'))).toEqual([2])
    } finally {
      await client.end()
    }
  })

  it('pushes to just-emptied partitions during cleanup cycles are never lost', async () => {
    const queue = 'pc-race'
    await configure(broker, queue, { dedupWindowSeconds: 0 })
    const partitions = Array.from({ length: 20 }, (_, index) => `r-${index}`)
    let pushed = 0
    let deleted = 0
    try {
      for (let round = 0; round < 25; round++) {
        // Empty every partition (clear keeps them), so each is a cleanup candidate again.
        const cleared = await http(broker, 'DELETE', `/api/v1/queues/${queue}/clear`)
        expect(cleared.status).toBe(200)
        // Cleanup cycles back to back while the pushes arrive.
        let pushing = true
        const cleaner = (async () => {
          while (pushing) await jobs.retention.runOnce()
        })()
        // Spread over ~200 ms, so cycles run between them and at the same moment as them (a cycle can take
        // ~100 ms on a busy test machine).
        const results = await Promise.all(
          Array.from({ length: 40 }, async (_, index) => {
            await sleep(Math.random() * 200)
            return push(broker, [{ queue, partition: partitions[(index + round) % 20], payload: { round, index } }])
          }),
        )
        pushing = false
        await cleaner
        const ids = results.map(([result]) => {
          expect(result.status).toBe('queued')
          return result.message_id as string
        })
        pushed += ids.length
        const stored = await broker.db.query(`SELECT id FROM queen.messages WHERE id = ANY ($1::uuid[])`, [ids])
        expect(stored.rowCount, `round ${round}: acknowledged pushes lost`).toBe(ids.length)
        // Every message sits in a partition that exists.
        const orphans = await broker.db.query(
          `SELECT 1 FROM queen.messages m WHERE m.id = ANY ($1::uuid[])
           AND NOT EXISTS (SELECT 1 FROM queen.partitions p WHERE p.id = m.partition_id)`,
          [ids],
        )
        expect(orphans.rowCount).toBe(0)
        for (const deletion of jobs.deletions.splice(0)) if (deletion.kind === 'partitions') deleted += deletion.deleted
      }
      expect(pushed).toBe(1000)
      // The cleanup did run against the pushes (partitions were deleted between rounds and within them).
      expect(deleted).toBeGreaterThan(0)
      expect(jobs.runs.every((run) => run.outcome === 'ran')).toBe(true)
    } finally {
      jobs.runs.splice(0)
    }
  })
})
