// The retention cycle (docs/semantics.md, "Retention, eviction and cleanup", docs/reliability.md, "Hazards"): expired
// and completed retention, dedup tombstones, DLQ retention, cursor moves (no ghost partitions), purges. Messages are
// aged with UPDATE (every message of a partition by the same amount, so created_at keeps its order) instead of
// sleeping.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { http, startTestBroker, type TestBroker } from '../../support/broker.js'
import { ack, ackBatch, configure, numbers, pop, push, pushMany } from '../../support/queen.js'
import {
  ageMessages,
  cursors,
  history,
  housekeepingFor,
  storedNumbers,
  type Maintenance,
} from './housekeeping-support.js'

let broker: TestBroker
let jobs: Maintenance
beforeAll(async () => {
  broker = await startTestBroker({ label: 'retention' })
  jobs = housekeepingFor(broker)
})
afterAll(async () => {
  await jobs.close()
  await broker.close()
})

async function runRetention(): Promise<Record<string, number>> {
  jobs.drain()
  await jobs.retention.runOnce()
  expect(jobs.runs.at(-1)).toMatchObject({ job: 'retention', outcome: 'ran' })
  return jobs.drain()
}

describe('expired retention', () => {
  it('deletes old messages consumed or not, never one inside a live lease, and moves the cursors', async () => {
    const queue = 'exp-basic'
    await configure(broker, queue, { retentionEnabled: true, retentionSeconds: 10 })
    await pushMany(broker, queue, 'p', 6)
    const leased = await pop(broker, queue, { batch: 2 })
    expect(numbers(leased)).toEqual([0, 1])
    await ageMessages(broker, queue, 60)

    expect(await runRetention()).toEqual({ retention: 4 })
    expect(await storedNumbers(broker, queue, 'p')).toEqual([0, 1])
    expect(await history(broker, queue)).toEqual({ retention: 4 })

    // The leased messages are still there, so their acks succeed; then they go too.
    const acks = await ackBatch(broker, leased.messages)
    expect(acks.map((item: any) => item.success)).toEqual([true, true])
    expect(await runRetention()).toEqual({ retention: 2 })
    expect(await storedNumbers(broker, queue, 'p')).toEqual([])
    expect(await cursors(broker, queue)).toEqual([
      { partition: 'p', group: '__QUEUE_MODE__', cursor: 6, head: 6, lease: false },
    ])
    expect((await pop(broker, queue, { batch: 10 })).messages).toEqual([])
  })

  it('keeps messages younger than retentionSeconds and queues without retention', async () => {
    await configure(broker, 'exp-young', { retentionEnabled: true, retentionSeconds: 3600 })
    await pushMany(broker, 'exp-young', 'p', 3)
    await ageMessages(broker, 'exp-young', 60)
    // retentionSeconds without retentionEnabled, and a queue with no option at all.
    await configure(broker, 'exp-disabled', { retentionEnabled: false, retentionSeconds: 10 })
    await pushMany(broker, 'exp-disabled', 'p', 3)
    await ageMessages(broker, 'exp-disabled', 86_400 * 365)
    await pushMany(broker, 'exp-none', 'p', 3)
    await ageMessages(broker, 'exp-none', 86_400 * 365)

    await runRetention()
    expect(await storedNumbers(broker, 'exp-young', 'p')).toEqual([0, 1, 2])
    expect(await storedNumbers(broker, 'exp-disabled', 'p')).toEqual([0, 1, 2])
    expect(await storedNumbers(broker, 'exp-none', 'p')).toEqual([0, 1, 2])
  })

  it('deletes only the prefix older than the cutoff', async () => {
    const queue = 'exp-prefix'
    await configure(broker, queue, { retentionEnabled: true, retentionSeconds: 30 })
    await pushMany(broker, queue, 'p', 3)
    await ageMessages(broker, queue, 60)
    await pushMany(broker, queue, 'p', 3, 3)
    expect(await runRetention()).toEqual({ retention: 3 })
    expect(await storedNumbers(broker, queue, 'p')).toEqual([3, 4, 5])
    expect(numbers(await pop(broker, queue, { batch: 10 }))).toEqual([3, 4, 5])
  })

  it('a deleted message still answers duplicate inside the dedup window, and is new again after it', async () => {
    const queue = 'exp-dedup'
    await configure(broker, queue, { retentionEnabled: true, retentionSeconds: 10, dedupWindowSeconds: 3600 })
    const [original] = await push(broker, [{ queue, partition: 'p', transactionId: 'tx-1', payload: { n: 1 } }])
    expect(original.status).toBe('queued')
    await ageMessages(broker, queue, 60)
    expect(await runRetention()).toEqual({ retention: 1 })
    expect(await storedNumbers(broker, queue, 'p')).toEqual([])

    const [again] = await push(broker, [{ queue, partition: 'p', transactionId: 'tx-1', payload: { n: 2 } }])
    expect(again).toMatchObject({ status: 'duplicate', message_id: original.message_id })
    expect(await storedNumbers(broker, queue, 'p')).toEqual([])

    // Once the window has passed, the entry is purged and the id is a new message.
    await broker.db.query(
      `UPDATE queen.dedup_entries SET accepted_at = accepted_at - interval '2 hours' WHERE transaction_id = 'tx-1'`,
    )
    await runRetention()
    const entries = await broker.db.query(`SELECT 1 FROM queen.dedup_entries WHERE transaction_id = 'tx-1'`)
    expect(entries.rowCount).toBe(0)
    const [later] = await push(broker, [{ queue, partition: 'p', transactionId: 'tx-1', payload: { n: 3 } }])
    expect(later.status).toBe('queued')
    expect(await storedNumbers(broker, queue, 'p')).toEqual([3])
  })

  it('loops over batches until nothing is left', async () => {
    const small = housekeepingFor(broker, { retentionBatchSize: 3 })
    try {
      const queue = 'exp-batches'
      await configure(broker, queue, { retentionEnabled: true, retentionSeconds: 10 })
      for (const partition of ['a', 'b', 'c', 'd']) await pushMany(broker, queue, partition, 5)
      await ageMessages(broker, queue, 60)
      await small.retention.runOnce()
      expect(small.runs).toEqual([expect.objectContaining({ outcome: 'ran' })])
      expect(small.drain()).toEqual({ retention: 20 })
      for (const partition of ['a', 'b', 'c', 'd']) expect(await storedNumbers(broker, queue, partition)).toEqual([])
      expect(await history(broker, queue)).toEqual({ retention: 20 })
    } finally {
      await small.close()
    }
  })

  it('pages past leased heads with small batches', async () => {
    const small = housekeepingFor(broker, { retentionBatchSize: 2 })
    try {
      const queue = 'exp-paging'
      await configure(broker, queue, { retentionEnabled: true, retentionSeconds: 10, maxSize: 1000 })
      for (const partition of ['a', 'b', 'c']) await pushMany(broker, queue, partition, 5)
      const leased = await pop(broker, queue, { batch: 3 }, 'b')
      await ageMessages(broker, queue, 60)
      await small.retention.runOnce()
      expect(small.drain()).toEqual({ retention: 12 })
      expect(await storedNumbers(broker, queue, 'a')).toEqual([])
      expect(await storedNumbers(broker, queue, 'b')).toEqual([0, 1, 2])
      expect(await storedNumbers(broker, queue, 'c')).toEqual([])
      const stored = await broker.db.query(`SELECT stored_messages FROM queen.queues WHERE name = $1`, [queue])
      expect(stored.rows[0].stored_messages).toBe(3)
      expect((await ackBatch(broker, leased.messages)).every((item: any) => item.success)).toBe(true)
    } finally {
      await small.close()
    }
  })

  it('keeps the maxSize counter exact', async () => {
    const queue = 'exp-capped'
    await configure(broker, queue, { retentionEnabled: true, retentionSeconds: 10, maxSize: 100 })
    await pushMany(broker, queue, 'p', 5)
    await ageMessages(broker, queue, 60)
    await pushMany(broker, queue, 'q', 2)
    await runRetention()
    const stored = await broker.db.query(`SELECT stored_messages FROM queen.queues WHERE name = $1`, [queue])
    expect(stored.rows[0].stored_messages).toBe(2)
  })

  it('deletes DLQ entries with their message unless the queue keeps payload copies', async () => {
    for (const [queue, copies] of [
      ['dlq-nocopy', false],
      ['dlq-copy', true],
    ] as const) {
      await configure(broker, queue, {
        retentionEnabled: true,
        retentionSeconds: 10,
        retryLimit: 0,
        deadLetterQueue: copies,
      })
      await pushMany(broker, queue, 'p', 2)
      const popped = await pop(broker, queue, { batch: 2 })
      await ack(broker, popped.messages[0], { status: 'failed', error: 'poison' })
      await ack(broker, popped.messages[1])
      await ageMessages(broker, queue, 60)
    }
    await runRetention()
    expect(await storedNumbers(broker, 'dlq-nocopy', 'p')).toEqual([])
    expect(await storedNumbers(broker, 'dlq-copy', 'p')).toEqual([])

    const gone = await http(broker, 'GET', '/api/v1/dlq?queue=dlq-nocopy')
    expect(gone.body.total).toBe(0)
    const kept = await http(broker, 'GET', '/api/v1/dlq?queue=dlq-copy')
    expect(kept.body.total).toBe(1)
    expect(kept.body.messages[0]).toMatchObject({ data: { n: 0 }, errorMessage: 'poison' })
    const states = await broker.db.query(
      `SELECT count(*)::integer AS n FROM queen.message_states s JOIN queen.partitions p ON p.id = s.partition_id
       JOIN queen.queues q ON q.id = p.queue_id WHERE q.name IN ('dlq-nocopy', 'dlq-copy')`,
    )
    expect(states.rows[0].n).toBe(0)
  })
})

describe('completed retention', () => {
  it('with a lagging group deletes nothing B has not settled, and everything both settled', async () => {
    const queue = 'cr-lag'
    await configure(broker, queue, { retentionEnabled: true, completedRetentionSeconds: 5 })
    await pushMany(broker, queue, 'p', 10)
    const a = await pop(broker, queue, { consumerGroup: 'A', batch: 10 })
    await ackBatch(broker, a.messages)
    // B takes eight, settles 0-3 and, out of order, 6; 4, 5 and 7 stay open under its live lease.
    const b = await pop(broker, queue, { consumerGroup: 'B', batch: 8 })
    expect(numbers(b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7])
    await ackBatch(
      broker,
      [0, 1, 2, 3, 6].map((n) => b.messages[n]),
    )
    // Far older than the window: only positions decide, not clocks.
    await ageMessages(broker, queue, 86_400)

    expect(await runRetention()).toEqual({ completed: 4 })
    expect(await storedNumbers(broker, queue, 'p')).toEqual([4, 5, 6, 7, 8, 9])

    // B settles the rest of its lease: 4-7 go; 8 and 9, which B never read, stay.
    const acks = await ackBatch(
      broker,
      [4, 5, 7].map((n) => b.messages[n]),
    )
    expect(acks.every((item: any) => item.success)).toBe(true)
    expect(await runRetention()).toEqual({ completed: 4 })
    expect(await storedNumbers(broker, queue, 'p')).toEqual([8, 9])
    expect(await history(broker, queue)).toEqual({ completed: 8 })

    // B still gets 8 and 9, A nothing.
    expect(numbers(await pop(broker, queue, { consumerGroup: 'B', batch: 10 }))).toEqual([8, 9])
    expect((await pop(broker, queue, { consumerGroup: 'A', batch: 10 })).messages).toEqual([])
  })

  it('deletes settled messages above a slow cursor when every group settled them', async () => {
    const queue = 'cr-sparse'
    await configure(broker, queue, { retentionEnabled: true, completedRetentionSeconds: 5, retryLimit: 0 })
    await pushMany(broker, queue, 'p', 4)
    const first = await pop(broker, queue, { batch: 4 })
    // 0 fails into the DLQ (settled), 2 completes: the cursor passes 0, stops below 1.
    await ack(broker, first.messages[0], { status: 'failed' })
    await ack(broker, first.messages[2])
    // End the lease (as if it expired unreclaimed): 1 and 3 stay open, 2 is settled out of order.
    await broker.db.query(
      `UPDATE queen.consumers c SET lease_expires_at = now() - interval '1 second'
       FROM queen.queues q WHERE q.id = c.queue_id AND q.name = $1`,
      [queue],
    )
    await ageMessages(broker, queue, 60)
    expect(await runRetention()).toEqual({ completed: 2 })
    expect(await storedNumbers(broker, queue, 'p')).toEqual([1, 3])
  })

  it('a subscribed group that never read the partition blocks it after its start', async () => {
    const queue = 'cr-sub'
    await configure(broker, queue, { retentionEnabled: true, completedRetentionSeconds: 5 })
    await pushMany(broker, queue, 'p', 5)
    // C subscribes now ("new") with a pop of another partition that finds nothing new; it never reads p.
    await pushMany(broker, queue, 'other', 1, 100)
    expect((await pop(broker, queue, { consumerGroup: 'C', subscriptionMode: 'new' }, 'other')).messages).toEqual([])
    await pushMany(broker, queue, 'p', 5, 5)
    const a = await pop(broker, queue, { consumerGroup: 'A', batch: 10 }, 'p')
    expect(numbers(a)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
    await ackBatch(broker, a.messages)
    // Age the messages and C's start together, so "created before C's start" keeps its meaning.
    await ageMessages(broker, queue, 60)
    await broker.db.query(
      `UPDATE queen.subscriptions s SET start_at = s.start_at - interval '60 seconds'
       FROM queen.queues q WHERE q.id = s.queue_id AND q.name = $1 AND s.consumer_group = 'C'`,
      [queue],
    )
    const rows = await cursors(broker, queue)
    expect(rows.filter((row) => row.group === 'C').map((row) => row.partition)).toEqual(['other'])
    expect(await runRetention()).toEqual({ completed: 5 })
    expect(await storedNumbers(broker, queue, 'p')).toEqual([5, 6, 7, 8, 9])
    expect(numbers(await pop(broker, queue, { consumerGroup: 'C', batch: 10 }))).toEqual([5, 6, 7, 8, 9])
  })

  it('a group subscribed from the beginning that never read the partition blocks all of it', async () => {
    const queue = 'cr-sub-all'
    await configure(broker, queue, { retentionEnabled: true, completedRetentionSeconds: 5 })
    expect((await pop(broker, queue, { consumerGroup: 'D', subscriptionMode: 'all' })).messages).toEqual([])
    await pushMany(broker, queue, 'p', 4)
    await ackBatch(broker, (await pop(broker, queue, { consumerGroup: 'A', batch: 10 })).messages)
    await ageMessages(broker, queue, 60)
    await runRetention()
    expect(await storedNumbers(broker, queue, 'p')).toEqual([0, 1, 2, 3])

    await ackBatch(broker, (await pop(broker, queue, { consumerGroup: 'D', batch: 10 })).messages)
    expect(await runRetention()).toEqual({ completed: 4 })
    expect(await storedNumbers(broker, queue, 'p')).toEqual([])
  })

  it('deletes nothing when no group is known', async () => {
    const queue = 'cr-nogroup'
    await configure(broker, queue, { retentionEnabled: true, completedRetentionSeconds: 5 })
    await pushMany(broker, queue, 'p', 3)
    await ageMessages(broker, queue, 60)
    await runRetention()
    expect(await storedNumbers(broker, queue, 'p')).toEqual([0, 1, 2])
  })
})

describe('ghost-free partitions', () => {
  it('wildcard pops never claim a partition retention emptied while data exists elsewhere', async () => {
    const queue = 'ghost'
    await configure(broker, queue, { retentionEnabled: true, retentionSeconds: 30 })
    for (const partition of ['old-0', 'old-1', 'old-2', 'old-3']) await pushMany(broker, queue, partition, 3)
    // Queue mode and group G read some of them, leaving cursors in the middle.
    await ack(broker, (await pop(broker, queue, { batch: 1 }, 'old-0')).messages[0])
    await ackBatch(broker, (await pop(broker, queue, { batch: 2 }, 'old-1')).messages)
    await ack(broker, (await pop(broker, queue, { consumerGroup: 'G', batch: 1 }, 'old-2')).messages[0])
    await ageMessages(broker, queue, 120)
    await pushMany(broker, queue, 'fresh', 6)

    expect(await runRetention()).toEqual({ retention: 12 })
    for (const row of await cursors(broker, queue)) {
      if (row.partition.startsWith('old-')) expect(row.cursor).toBe(row.head)
    }

    // One partition per pop: every answer comes from the only partition with data.
    for (const group of ['__QUEUE_MODE__', 'G', 'H']) {
      const params: Record<string, string | number> =
        group === '__QUEUE_MODE__' ? { batch: 2 } : { consumerGroup: group, batch: 2 }
      for (const expected of [
        [0, 1],
        [2, 3],
        [4, 5],
      ]) {
        const body = await pop(broker, queue, params)
        expect(body.partition).toBe('fresh')
        expect(numbers(body)).toEqual(expected)
        await ackBatch(broker, body.messages)
      }
      expect((await pop(broker, queue, params)).messages).toEqual([])
    }

    // Groups that first met the emptied partitions got cursors at 0 there: the next cycle repairs them.
    await runRetention()
    for (const row of await cursors(broker, queue)) expect(row.cursor).toBe(row.head)
  })
})

describe('purges', () => {
  it('removes expired-lease records after a day and history past METRICS_RETENTION_DAYS', async () => {
    await broker.db.query(`INSERT INTO queen.expired_leases (lease_id, expired_at) VALUES
      ('00000000-0000-7000-8000-000000000001', now() - interval '25 hours'),
      ('00000000-0000-7000-8000-000000000002', now() - interval '1 hour')`)
    await broker.db.query(`INSERT INTO queen.retention_history (bucket, tenant, queue_name, kind, deleted) VALUES
      (now() - interval '91 days', '', 'purge-old', 'retention', 1),
      (now() - interval '89 days', '', 'purge-new', 'retention', 1)`)
    await runRetention()
    const leases = await broker.db.query(`SELECT lease_id FROM queen.expired_leases ORDER BY 1`)
    expect(leases.rows.map((row) => row.lease_id)).toEqual(['00000000-0000-7000-8000-000000000002'])
    expect(await history(broker, 'purge-old')).toEqual({})
    expect(await history(broker, 'purge-new')).toEqual({ retention: 1 })
  })
})
