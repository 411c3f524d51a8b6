// The stats refresh recomputes only what may have changed (009_stats.sql). Whatever a user does must still
// show after the next refresh, including a lease running out (which writes nothing), dead letters coming
// and going, out-of-order settlements, and a hole in a partition's positions (single-message delete), which
// must be counted rather than computed; a partition nobody touched keeps its row as it was.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { http, startTestBroker, type TestBroker } from '../../support/broker.js'
import { ack, ackBatch, configure, pop, pushMany } from '../../support/queen.js'

let broker: TestBroker
beforeAll(async () => {
  broker = await startTestBroker({ label: 'stats_incremental' })
})
afterAll(async () => {
  await broker.close()
})

async function refresh(): Promise<void> {
  const response = await http(broker, 'POST', '/api/v1/stats/refresh')
  expect(response.status).toBe(200)
}

/** The snapshot counters of one partition, as GET /api/v1/status/queues/:queue shows them. */
async function counters(queue: string, partition: string): Promise<Record<string, number>> {
  const response = await http(broker, 'GET', `/api/v1/status/queues/${queue}?includePartitions=true`)
  expect(response.status).toBe(200)
  const found = response.body.partitions.find((entry: any) => entry.name === partition)
  expect(found, `partition ${partition} of ${queue}`).toBeDefined()
  return found.messages
}

/** The same counters computed from scratch now (queen.partition_counters), in the API's shape. */
async function computedNow(queue: string, partition: string): Promise<Record<string, number>> {
  const result = await broker.db.query(
    `SELECT c.* FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id
     CROSS JOIN LATERAL queen.partition_counters(p.id) c WHERE q.name = $1 AND p.name = $2`,
    [queue, partition],
  )
  const row = result.rows[0]
  return {
    total: Number(row.total),
    pending: Number(row.pending),
    processing: Number(row.processing),
    completed: Number(row.completed),
    failed: Number(row.failed),
    deadLetter: Number(row.dead_letter),
  }
}

/** Lag of a group on a queue from the snapshot's consumer level (what queen_consumer_lag_messages reads). */
async function lag(queue: string, group: string): Promise<number | undefined> {
  const result = await broker.db.query(
    `SELECT s.lag_messages FROM queen.stats_snapshot s JOIN queen.queues q ON q.id = s.queue_id
     WHERE s.level = 'consumer' AND q.name = $1 AND s.consumer_group = $2`,
    [queue, group],
  )
  return result.rows[0] === undefined ? undefined : Number(result.rows[0].lag_messages)
}

async function partitionRowRefreshedAt(queue: string): Promise<string> {
  const result = await broker.db.query(
    `SELECT s.refreshed_at::text AS at FROM queen.stats_snapshot s JOIN queen.queues q ON q.id = s.queue_id
     WHERE s.level = 'partition' AND q.name = $1`,
    [queue],
  )
  expect(result.rows).toHaveLength(1)
  return result.rows[0].at
}

describe('incremental stats refresh', () => {
  it('follows pushes, pops, acks and lease expiry', async () => {
    await configure(broker, 'inc.flow', { leaseTime: 1 })
    await pushMany(broker, 'inc.flow', 'p1', 4)
    await refresh()
    expect(await counters('inc.flow', 'p1')).toEqual({
      total: 4,
      pending: 4,
      processing: 0,
      completed: 0,
      failed: 0,
      deadLetter: 0,
    })

    await pop(broker, 'inc.flow', {}, 'p1')
    await refresh()
    expect(await counters('inc.flow', 'p1')).toMatchObject({ pending: 3, processing: 1 })

    // The lease runs out with nothing written (no reclaim job runs in this broker).
    await new Promise((resolve) => setTimeout(resolve, 1300))
    await refresh()
    expect(await counters('inc.flow', 'p1')).toMatchObject({ pending: 4, processing: 0 })

    const popped = await pop(broker, 'inc.flow', { batch: 2 }, 'p1')
    await ackBatch(broker, popped.messages)
    await refresh()
    expect(await counters('inc.flow', 'p1')).toEqual({
      total: 4,
      pending: 2,
      processing: 0,
      completed: 2,
      failed: 0,
      deadLetter: 0,
    })
    expect(await counters('inc.flow', 'p1')).toEqual(await computedNow('inc.flow', 'p1'))
  })

  it('follows dead letters in and out of the DLQ', async () => {
    await configure(broker, 'inc.dlq', { retryLimit: 0 })
    await pushMany(broker, 'inc.dlq', 'p1', 3)
    const bad = await pop(broker, 'inc.dlq', {}, 'p1')
    await ack(broker, bad.messages[0], { status: 'failed', error: 'bad payload' })
    await refresh()
    expect(await counters('inc.dlq', 'p1')).toMatchObject({ total: 3, pending: 2, deadLetter: 1 })
    await refresh()
    expect(await counters('inc.dlq', 'p1')).toMatchObject({ total: 3, pending: 2, deadLetter: 1 })

    // A retry from the DLQ removes the dead letter without moving the cursor.
    const retried = await http(
      broker,
      'POST',
      `/api/v1/messages/${bad.messages[0].partitionId}/${bad.messages[0].transactionId}/retry`,
      {},
    )
    expect(retried.status).toBe(200)
    await refresh()
    expect(await counters('inc.dlq', 'p1')).toMatchObject({ total: 3, deadLetter: 0, pending: 3 })
    expect(await counters('inc.dlq', 'p1')).toEqual(await computedNow('inc.dlq', 'p1'))
  })

  it('leaves an untouched partition as it was and keeps its counters right', async () => {
    await pushMany(broker, 'inc.idle', 'p1', 2)
    await refresh()
    const first = await partitionRowRefreshedAt('inc.idle')
    await pushMany(broker, 'inc.busy', 'p1', 1)
    await refresh()
    expect(await partitionRowRefreshedAt('inc.idle')).toBe(first)
    expect(await counters('inc.idle', 'p1')).toMatchObject({ total: 2, pending: 2 })
    expect(await counters('inc.busy', 'p1')).toMatchObject({ total: 1, pending: 1 })

    await pushMany(broker, 'inc.idle', 'p1', 1, 2)
    await refresh()
    expect(await partitionRowRefreshedAt('inc.idle')).not.toBe(first)
    expect(await counters('inc.idle', 'p1')).toMatchObject({ total: 3, pending: 3 })
  })

  it('computes the backlog of a partition whose oldest messages were deleted', async () => {
    const pushed = await pushMany(broker, 'inc.prefix', 'p1', 3)
    const first = pushed[0]
    const deleted = await http(broker, 'DELETE', `/api/v1/messages/${first.partition_id}/${first.transaction_id}`)
    expect(deleted.status).toBe(200)
    const popped = await pop(broker, 'inc.prefix', { consumerGroup: 'g' }, 'p1')
    expect(popped.messages).toHaveLength(1)
    await refresh()
    expect(await counters('inc.prefix', 'p1')).toMatchObject({ total: 2, processing: 1, pending: 1, completed: 0 })
    expect(await counters('inc.prefix', 'p1')).toEqual(await computedNow('inc.prefix', 'p1'))
    expect(await lag('inc.prefix', 'g')).toBe(2)
  })

  it('counts a group lag with out-of-order settlements and after a single-message delete', async () => {
    const pushed = await pushMany(broker, 'inc.lag', 'p1', 5)
    const popped = await pop(broker, 'inc.lag', { batch: 3, consumerGroup: 'g' }, 'p1')
    expect(popped.messages).toHaveLength(3)
    // Settle the third only: the cursor stays, the group has settled one message above it.
    await ackBatch(broker, [popped.messages[2]])
    await refresh()
    expect(await lag('inc.lag', 'g')).toBe(4)
    await refresh()
    expect(await lag('inc.lag', 'g')).toBe(4)

    // Delete the fourth message: a hole in the positions above the cursor.
    const fourth = pushed[3]
    const deleted = await http(broker, 'DELETE', `/api/v1/messages/${fourth.partition_id}/${fourth.transaction_id}`)
    expect(deleted.status).toBe(200)
    await refresh()
    expect(await lag('inc.lag', 'g')).toBe(3)
    // Counters over the hole: 1 and 2 leased, 3 settled, 4 deleted, 5 waiting.
    expect(await counters('inc.lag', 'p1')).toMatchObject({ total: 4, processing: 2, completed: 1, pending: 1 })
    expect(await counters('inc.lag', 'p1')).toEqual(await computedNow('inc.lag', 'p1'))

    await ackBatch(broker, popped.messages.slice(0, 2))
    await refresh()
    expect(await lag('inc.lag', 'g')).toBe(1)
  })
})
