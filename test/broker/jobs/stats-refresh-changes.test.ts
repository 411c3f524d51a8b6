// The stats refresh recomputes the partitions that changed since the last refresh, not every partition
// (issue 22), and after each kind of change every level of the snapshot is what a refresh from scratch
// computes: the oracle below recomputes the whole snapshot from the tables with the same per-partition
// functions (006, 008) and compares it row by row.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { http, startTestBroker, type TestBroker } from '../../support/broker.js'
import { ack, ackBatch, configure, pop, push, pushMany, sleep } from '../../support/queen.js'
import { ageMessages, housekeepingFor, type Maintenance } from './housekeeping-support.js'

let broker: TestBroker
let jobs: Maintenance
beforeAll(async () => {
  broker = await startTestBroker({ label: 'stats_refresh_changes' })
  jobs = housekeepingFor(broker, { partitionCleanupDays: 0 })
})
afterAll(async () => {
  await jobs.close()
  await broker.close()
})

/** The answer of POST /api/v1/stats/refresh: rows written per level, stale rows removed. */
interface RefreshAnswer {
  partition: number
  queue: number
  namespace: number
  task: number
  system: number
  cleanup: number
}

async function refresh(): Promise<RefreshAnswer> {
  const response = await http(broker, 'POST', '/api/v1/stats/refresh')
  expect(response.status).toBe(200)
  expect(response.body.skipped).toBeUndefined()
  return response.body
}

/**
 * Every snapshot row computed from scratch (partition counters and oldest/newest, their sums per queue,
 * namespace, task and tenant, the lag of every consumer row summed per queue and group), minus the snapshot
 * as stored, both ways. lag_seconds and refreshed_at follow the clock and are left out.
 */
const SNAPSHOT_DIFFERENCES = `
WITH part AS (
  SELECT q.tenant, p.id, p.queue_id, c.total, c.pending, c.processing, c.completed, c.failed, c.dead_letter,
         (SELECT m.created_at FROM queen.messages m WHERE m.partition_id = p.id ORDER BY m.position LIMIT 1) AS oldest,
         (SELECT m.created_at FROM queen.messages m WHERE m.partition_id = p.id ORDER BY m.position DESC LIMIT 1)
           AS newest
  FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id
  CROSS JOIN LATERAL queen.partition_counters(p.id) c
), queue AS (
  SELECT q.tenant, q.id, q.namespace, q.task, count(pt.id) AS partitions, coalesce(sum(pt.total), 0) AS total,
         coalesce(sum(pt.pending), 0) AS pending, coalesce(sum(pt.processing), 0) AS processing,
         coalesce(sum(pt.completed), 0) AS completed, coalesce(sum(pt.failed), 0) AS failed,
         coalesce(sum(pt.dead_letter), 0) AS dead_letter, min(pt.oldest) AS oldest, max(pt.newest) AS newest
  FROM queen.queues q LEFT JOIN part pt ON pt.queue_id = q.id GROUP BY q.id
), expected AS (
  SELECT 'partition' AS level, tenant, id::text AS scope, 0::bigint AS queues, 1::bigint AS partitions, total,
         pending, processing, completed, failed, dead_letter, 0::numeric AS lag, oldest, newest
  FROM part
  UNION ALL
  SELECT 'queue', tenant, id::text, 1, partitions, total, pending, processing, completed, failed, dead_letter, 0,
         oldest, newest
  FROM queue
  UNION ALL
  SELECT 'namespace', tenant, namespace, count(*), sum(partitions), sum(total), sum(pending), sum(processing),
         sum(completed), sum(failed), sum(dead_letter), 0, min(oldest), max(newest)
  FROM queue WHERE namespace <> '' GROUP BY tenant, namespace
  UNION ALL
  SELECT 'task', tenant, task, count(*), sum(partitions), sum(total), sum(pending), sum(processing),
         sum(completed), sum(failed), sum(dead_letter), 0, min(oldest), max(newest)
  FROM queue WHERE task <> '' GROUP BY tenant, task
  UNION ALL
  SELECT 'system', t.tenant, '', count(qq.id), coalesce(sum(qq.partitions), 0), coalesce(sum(qq.total), 0),
         coalesce(sum(qq.pending), 0), coalesce(sum(qq.processing), 0), coalesce(sum(qq.completed), 0),
         coalesce(sum(qq.failed), 0), coalesce(sum(qq.dead_letter), 0), 0, min(qq.oldest), max(qq.newest)
  FROM (SELECT DISTINCT tenant FROM queen.queues UNION SELECT '') t
  LEFT JOIN queue qq ON qq.tenant = t.tenant GROUP BY t.tenant
  UNION ALL
  SELECT 'consumer', q.tenant, q.id::text || '/' || c.consumer_group, 0, count(*), 0, 0, 0, 0, 0, 0,
         sum(l.unsettled), min(l.oldest), NULL
  FROM queen.consumers c JOIN queen.queues q ON q.id = c.queue_id
  CROSS JOIN LATERAL queen.partition_group_lag(c.partition_id, c.consumer_group, c.cursor_position, c.start_at) l
  GROUP BY q.tenant, q.id, c.consumer_group
), stored AS (
  SELECT level, tenant, scope, CASE WHEN level IN ('partition', 'consumer') THEN 0 ELSE queues END::bigint,
         partitions::bigint, total, pending, processing, completed, failed, dead_letter, lag_messages::numeric,
         oldest_message_at, CASE WHEN level = 'consumer' THEN NULL ELSE newest_message_at END
  FROM queen.stats_snapshot
)
SELECT 'missing' AS diff, * FROM (SELECT * FROM expected EXCEPT SELECT * FROM stored) a
UNION ALL
SELECT 'stale', * FROM (SELECT * FROM stored EXCEPT SELECT * FROM expected) b
ORDER BY level, scope, diff`

async function expectExact(): Promise<void> {
  const differences = await broker.db.query(SNAPSHOT_DIFFERENCES)
  expect(differences.rows).toEqual([])
}

/** Snapshot counters of one queue, and of one of its partitions. */
async function queueRow(queue: string): Promise<Record<string, number>> {
  const result = await broker.db.query(
    `SELECT s.partitions, s.total::int, s.pending::int, s.processing::int, s.completed::int, s.failed::int,
            s.dead_letter::int
     FROM queen.stats_snapshot s JOIN queen.queues q ON q.id = s.queue_id WHERE s.level = 'queue' AND q.name = $1`,
    [queue],
  )
  return result.rows[0]
}

/** The lag rows of the snapshot's consumer level for a queue, by group. */
async function groupLags(queue: string): Promise<Record<string, number>> {
  const result = await broker.db.query(
    `SELECT s.consumer_group, s.lag_messages::int AS lag FROM queen.stats_snapshot s
     JOIN queen.queues q ON q.id = s.queue_id WHERE s.level = 'consumer' AND q.name = $1 ORDER BY 1`,
    [queue],
  )
  return Object.fromEntries(result.rows.map((row) => [row.consumer_group, row.lag]))
}

/** Pushes one message to each of `partitions` partitions p0..p(n-1) of a queue, in one request. */
async function pushSpread(queue: string, partitions: number, n = 0): Promise<any[]> {
  return push(
    broker,
    Array.from({ length: partitions }, (_, index) => ({ queue, partition: `p${index}`, payload: { n } })),
  )
}

describe('stats refresh after each kind of change', () => {
  it('recomputes nothing when nothing changed, then only the partitions pushed to', async () => {
    await pushSpread('chg.push', 6)
    await refresh()
    expect((await refresh()).partition).toBe(0)
    await pushMany(broker, 'chg.push', 'p2', 2, 1)
    await pushMany(broker, 'chg.push', 'p4', 1, 3)
    const answer = await refresh()
    expect(answer).toMatchObject({ partition: 2, queue: 1, cleanup: 0 })
    expect(await queueRow('chg.push')).toEqual({
      partitions: 6,
      total: 9,
      pending: 9,
      processing: 0,
      completed: 0,
      failed: 0,
      dead_letter: 0,
    })
    await expectExact()
  })

  it('follows a pop, an ack, a failure and a retry ack, recomputing only the partition consumed', async () => {
    await configure(broker, 'chg.flow', { retryLimit: 3, retryDelay: 0 })
    await pushSpread('chg.flow', 4)
    await pushMany(broker, 'chg.flow', 'p1', 3, 1)
    await refresh()

    const popped = await pop(broker, 'chg.flow', { batch: 3 }, 'p1')
    expect(popped.messages).toHaveLength(3)
    expect((await refresh()).partition).toBe(1)
    await expectExact()
    expect(await queueRow('chg.flow')).toMatchObject({ total: 7, processing: 3, pending: 4 })

    await ack(broker, popped.messages[0])
    await ack(broker, popped.messages[1], { status: 'failed', error: 'boom' })
    await ack(broker, popped.messages[2], { status: 'retry' })
    expect((await refresh()).partition).toBe(1)
    await expectExact()
    expect(await queueRow('chg.flow')).toMatchObject({ total: 7, processing: 0, completed: 1, failed: 1, pending: 5 })
    expect((await refresh()).partition).toBe(0)
  })

  it('follows dead letters in and out of the DLQ', async () => {
    await configure(broker, 'chg.dlq', { retryLimit: 0 })
    await pushSpread('chg.dlq', 3)
    await pushMany(broker, 'chg.dlq', 'p0', 1, 1)
    await refresh()
    const bad = await pop(broker, 'chg.dlq', {}, 'p0')
    await ack(broker, bad.messages[0], { status: 'failed', error: 'bad payload' })
    expect((await refresh()).partition).toBe(1)
    await expectExact()
    expect(await queueRow('chg.dlq')).toMatchObject({ dead_letter: 1, pending: 3 })

    const retried = await http(
      broker,
      'POST',
      `/api/v1/messages/${bad.messages[0].partitionId}/${bad.messages[0].transactionId}/retry`,
      {},
    )
    expect(retried.status).toBe(200)
    expect((await refresh()).partition).toBe(1)
    await expectExact()
    expect(await queueRow('chg.dlq')).toMatchObject({ dead_letter: 0, pending: 4 })
  })

  it('sees a lease run out, which writes nothing, by recomputing leased partitions every time', async () => {
    await configure(broker, 'chg.lease', { leaseTime: 1 })
    await pushSpread('chg.lease', 3)
    await refresh()
    await pop(broker, 'chg.lease', {}, 'p1')
    expect((await refresh()).partition).toBe(1)
    expect(await queueRow('chg.lease')).toMatchObject({ processing: 1, pending: 2 })
    await sleep(1300)
    // Nothing was written since the last refresh, yet the counters changed.
    expect((await refresh()).partition).toBe(1)
    expect(await queueRow('chg.lease')).toMatchObject({ processing: 0, pending: 3 })
    await expectExact()
    // Until the lease is reclaimed, its partition is recomputed at every refresh; to the same counters, so
    // its queue's row is not written.
    expect(await refresh()).toMatchObject({ partition: 1, queue: 0 })
    await broker.db.query('SELECT queen.reclaim_expired_leases(100)')
    expect((await refresh()).partition).toBe(1)
    expect((await refresh()).partition).toBe(0)
    expect(await queueRow('chg.lease')).toMatchObject({ processing: 0, failed: 1, pending: 2 })
    await expectExact()
  })

  it('follows retention deleting the oldest messages of a queue, oldest and newest included', async () => {
    await configure(broker, 'chg.retention', { retentionEnabled: true, retentionSeconds: 600 })
    await pushSpread('chg.retention', 3)
    await ageMessages(broker, 'chg.retention', 1200, 'p0')
    await pushMany(broker, 'chg.retention', 'p0', 1, 1)
    await refresh()
    await expectExact()

    jobs.drain()
    await jobs.retention.runOnce()
    expect(jobs.drain()).toEqual({ retention: 1 })
    expect((await refresh()).partition).toBe(1)
    expect(await queueRow('chg.retention')).toMatchObject({ total: 3, pending: 3 })
    await expectExact()
  })

  it('follows a single-message delete and a queue clear', async () => {
    const pushed = await pushSpread('chg.clear', 4)
    await pushMany(broker, 'chg.clear', 'p3', 2, 1)
    await refresh()
    const deleted = await http(
      broker,
      'DELETE',
      `/api/v1/messages/${pushed[3].partition_id}/${pushed[3].transaction_id}`,
    )
    expect(deleted.status).toBe(200)
    expect((await refresh()).partition).toBe(1)
    expect(await queueRow('chg.clear')).toMatchObject({ total: 5 })
    await expectExact()

    expect((await http(broker, 'DELETE', '/api/v1/queues/chg.clear/clear')).status).toBe(200)
    expect((await refresh()).partition).toBe(4)
    expect(await queueRow('chg.clear')).toMatchObject({ partitions: 4, total: 0 })
    await expectExact()
  })

  it('follows consumer groups: their lag, a seek, and a group delete (the slowest group goes)', async () => {
    await pushSpread('chg.groups', 4)
    await pushMany(broker, 'chg.groups', 'p0', 2, 1)
    const fast = await pop(broker, 'chg.groups', { consumerGroup: 'fast', batch: 3 }, 'p0')
    await ackBatch(broker, fast.messages)
    await pop(broker, 'chg.groups', { consumerGroup: 'slow' }, 'p1')
    await refresh()
    await expectExact()
    expect(await groupLags('chg.groups')).toEqual({ fast: 0, slow: 1 })

    // A seek to the end gives the group a cursor on every partition of the queue.
    const seek = await http(broker, 'POST', '/api/v1/consumer-groups/fast/queues/chg.groups/seek', { toEnd: true })
    expect(seek.status).toBe(200)
    expect((await refresh()).partition).toBe(4)
    await expectExact()
    expect(await groupLags('chg.groups')).toEqual({ fast: 0, slow: 1 })

    // p1's counters were those of the slowest group, `slow`; without it they are `fast`'s.
    expect((await http(broker, 'DELETE', '/api/v1/consumer-groups/slow')).status).toBe(200)
    const afterDelete = await refresh()
    expect(afterDelete.partition).toBe(1)
    expect(afterDelete.cleanup).toBe(1)
    await expectExact()
    expect(await groupLags('chg.groups')).toEqual({ fast: 0 })
    expect(await queueRow('chg.groups')).toMatchObject({ total: 6, completed: 6, pending: 0, processing: 0 })
  })

  it('follows a group deleted and back on one partition before the next refresh', async () => {
    await pushSpread('chg.again', 3)
    for (const partition of ['p0', 'p1', 'p2'])
      await pop(broker, 'chg.again', { consumerGroup: 'g', autoAck: true }, partition)
    await refresh()
    expect((await http(broker, 'DELETE', '/api/v1/consumer-groups/g')).status).toBe(200)
    await pushMany(broker, 'chg.again', 'p2', 1, 1)
    await pop(broker, 'chg.again', { consumerGroup: 'g', autoAck: true }, 'p2')
    expect((await refresh()).partition).toBe(3)
    await expectExact()
  })

  it('removes the rows of a deleted queue and of cleaned-up partitions, recomputing nothing', async () => {
    await pushSpread('chg.gone', 3)
    // No dedup window: a dedup entry inside it would keep an emptied partition.
    await configure(broker, 'chg.cleanup', { retentionEnabled: true, retentionSeconds: 10, dedupWindowSeconds: 0 })
    await pushSpread('chg.cleanup', 3)
    await ageMessages(broker, 'chg.cleanup', 120)
    await refresh()

    expect((await http(broker, 'DELETE', '/api/v1/resources/queues/chg.gone')).status).toBe(200)
    // Its 3 partition rows, its queue row and the row of its task, `gone` (namespace `chg` has other queues).
    expect(await refresh()).toMatchObject({ partition: 0, queue: 0, cleanup: 5 })
    await expectExact()

    // Retention empties p0..p2; the cleanup of the same cycle deletes them (Default is never deleted).
    await jobs.retention.runOnce()
    const answer = await refresh()
    expect(answer.cleanup).toBe(3)
    expect(await queueRow('chg.cleanup')).toMatchObject({ partitions: 1, total: 0 })
    await expectExact()
  })

  it('recomputes everything when it has no horizon to start from', async () => {
    const partitions = await broker.db.query('SELECT count(*)::int AS n FROM queen.partitions')
    await broker.db.query('DELETE FROM queen.stats_refresh_state')
    expect((await refresh()).partition).toBe(partitions.rows[0].n)
    await expectExact()
    expect((await refresh()).partition).toBe(0)
  })
})
