import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { databaseConnection } from '../../support/database.js'
import { http, startTestBroker, type TestBroker } from '../../support/broker.js'
import { ack, configure, pop, push, pushMany } from '../../support/queen.js'

const BUCKET_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/
const MS_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

/**
 * A fresh broker with one known workload, flushed to PostgreSQL by the metrics and stats jobs:
 * queue `st.orders` (namespace st, task orders): 4 messages on partition p1, 2 on p2; 1 popped and
 * completed, 1 popped and still leased, 1 dead-lettered (retryLimit 0), 3 waiting.
 * queue `other`: 1 message, untouched.
 */
async function brokerWithWorkload(label: string) {
  const broker = await startTestBroker({ label })
  await configure(broker, 'st.orders', { retryLimit: 0 })
  await pushMany(broker, 'st.orders', 'p1', 4)
  await pushMany(broker, 'st.orders', 'p2', 2)
  await pushMany(broker, 'other', 'Default', 1)
  const completed = await pop(broker, 'st.orders', {}, 'p1')
  await ack(broker, completed.messages[0])
  const failed = await pop(broker, 'st.orders', {}, 'p1')
  await ack(broker, failed.messages[0], { status: 'failed', error: 'bad payload' })
  const leased = await pop(broker, 'st.orders', {}, 'p2')
  expect(leased.messages).toHaveLength(1)
  await broker.services.observability.metricsJob.runOnce()
  await broker.services.observability.statsJob.runOnce()
  return broker
}

let broker: TestBroker
beforeAll(async () => {
  broker = await brokerWithWorkload('status')
})
afterAll(async () => {
  await broker.close()
})

describe('POST /api/v1/stats/refresh', () => {
  it('answers the rows refreshed per level, reading no body', async () => {
    const response = await http(broker, 'POST', '/api/v1/stats/refresh', 'not json at all', {
      'content-type': 'text/plain',
    })
    expect(response.status).toBe(200)
    // The stats job refreshed after the workload, so only p2 of st.orders is recomputed (a leased partition,
    // recomputed every time: its lease may run out without a write), to the same counters, so no queue row
    // changes; namespaces st and other (derived from the names), task orders and the system row are
    // rewritten; nothing stale.
    expect(response.body).toEqual({ partition: 1, queue: 0, namespace: 2, task: 1, system: 1, cleanup: 0 })
    // 4 partitions: st.orders: Default from configure, p1, p2; other: Default.
    const rows = await broker.db.query("SELECT count(*)::int AS n FROM queen.stats_snapshot WHERE level = 'partition'")
    expect(rows.rows[0].n).toBe(4)
  })

  it('removes the rows of a deleted queue', async () => {
    const local = await startTestBroker({ label: 'status_cleanup' })
    try {
      await pushMany(local, 'kept', 'Default', 1)
      await pushMany(local, 'gone', 'Default', 1)
      expect((await http(local, 'POST', '/api/v1/stats/refresh')).body).toMatchObject({ partition: 2, queue: 2 })
      await http(local, 'DELETE', '/api/v1/resources/queues/gone')
      const response = await http(local, 'POST', '/api/v1/stats/refresh')
      // The partition, queue and namespace rows of `gone` go; nothing is recomputed, and the row of `kept` stays,
      // with its counters.
      expect(response.body).toEqual({ partition: 0, queue: 0, namespace: 1, task: 0, system: 1, cleanup: 3 })
      const kept = await local.db.query(
        "SELECT s.total FROM queen.stats_snapshot s JOIN queen.queues q ON q.id = s.queue_id WHERE s.level = 'partition' AND q.name = 'kept'",
      )
      expect(kept.rows).toEqual([{ total: 1 }])
    } finally {
      await local.close()
    }
  })

  it('skips while another instance holds the stats lock', async () => {
    const other = new pg.Client(databaseConnection(broker.database))
    await other.connect()
    try {
      await other.query('SELECT pg_advisory_lock(1364542798, 1398030676)')
      const response = await http(broker, 'POST', '/api/v1/stats/refresh')
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ skipped: true, reason: 'another_instance_running' })
    } finally {
      await other.end()
    }
    // Released: the next refresh runs (and recomputes the leased partition p2).
    const after = await http(broker, 'POST', '/api/v1/stats/refresh')
    expect(after.body).toMatchObject({ partition: 1, system: 1 })
  })
})

describe('GET /api/v1/status', () => {
  it('answers every documented key with the workload in it', async () => {
    const response = await http(broker, 'GET', '/api/v1/status')
    expect(response.status).toBe(200)
    const body = response.body
    expect(Object.keys(body).sort()).toEqual(
      [
        'timeRange',
        'bucketMinutes',
        'pointCount',
        'throughput',
        'queues',
        'messages',
        'leases',
        'deadLetterQueue',
        'workers',
        'errors',
        'statsAge',
      ].sort(),
    )
    expect(body.timeRange.from).toMatch(MS_TIMESTAMP)
    expect(Date.parse(body.timeRange.to) - Date.parse(body.timeRange.from)).toBe(3_600_000)
    expect(body.bucketMinutes).toBe(1)
    expect(body.pointCount).toBe(body.throughput.length)
    expect(body.throughput.length).toBeGreaterThanOrEqual(60)
    const point = body.throughput[0]
    expect(Object.keys(point).sort()).toEqual(
      [
        'timestamp',
        'ingested',
        'processed',
        'popMessages',
        'ingestedPerSecond',
        'processedPerSecond',
        'popPerSecond',
        'avgLagMs',
        'maxLagMs',
      ].sort(),
    )
    expect(point.timestamp).toMatch(BUCKET_TIMESTAMP)
    const sum = (key: string) => body.throughput.reduce((total: number, p: any) => total + p[key], 0)
    expect(sum('ingested')).toBe(7)
    expect(sum('processed')).toBe(1)
    expect(sum('popMessages')).toBe(3)
    const busiest = body.throughput.find((p: any) => p.ingested > 0)
    expect(busiest.ingestedPerSecond).toBeCloseTo(busiest.ingested / 60, 2)

    expect(body.queues.map((queue: any) => queue.name)).toEqual(['other', 'st.orders'])
    expect(body.queues.find((queue: any) => queue.name === 'st.orders')).toMatchObject({
      namespace: 'st',
      task: 'orders',
      partitions: 3,
      // Messages acknowledged as completed.
      totalConsumed: 1,
    })
    expect(body.messages).toMatchObject({
      total: 7,
      pending: 4,
      processing: 1,
      completed: 1,
      failed: 0,
      deadLetter: 1,
    })
    expect(body.messages.requests).toEqual({ push: 3, pop: 3, ack: 2 })
    expect(Object.keys(body.messages.batchEfficiency).sort()).toEqual(['ack', 'pop', 'push'])
    expect(body.messages.batchEfficiency.pop).toBe(1)
    expect(body.messages.batchEfficiency.push).toBeGreaterThanOrEqual(1)
    expect(body.leases).toEqual({ active: 1, partitionsWithLeases: 1, totalBatchSize: 1, totalAcked: 0 })
    expect(body.deadLetterQueue).toEqual({
      totalMessages: 1,
      affectedPartitions: 1,
      topErrors: [{ error: 'bad payload', count: 1 }],
    })
    expect(body.workers).toHaveLength(1)
    expect(body.workers[0]).toMatchObject({ serverId: 'test-broker', pid: process.pid })
    expect(Object.keys(body.workers[0]).sort()).toEqual(
      ['serverId', 'hostname', 'pid', 'lastSeen', 'pushPerSecond', 'popPerSecond', 'ackPerSecond'].sort(),
    )
    expect(body.workers[0].lastSeen).toMatch(MS_TIMESTAMP)
    expect(body.workers[0].pushPerSecond).toBeCloseTo(7 / 3600, 2)
    expect(body.errors).toEqual({ dbErrors: 0, ackFailed: 1, dlqMessages: 1 })
    expect(body.statsAge).toBeGreaterThanOrEqual(0)
    expect(body.statsAge).toBeLessThan(60)
  })

  it('filters by queue, namespace and task', async () => {
    const byQueue = await http(broker, 'GET', '/api/v1/status?queue=other')
    expect(byQueue.body.queues.map((queue: any) => queue.name)).toEqual(['other'])
    expect(byQueue.body.messages.total).toBe(1)
    expect(byQueue.body.throughput.reduce((total: number, p: any) => total + p.ingested, 0)).toBe(1)
    expect(byQueue.body.deadLetterQueue.totalMessages).toBe(0)

    const byNamespace = await http(broker, 'GET', '/api/v1/status?namespace=st&task=orders')
    expect(byNamespace.body.queues.map((queue: any) => queue.name)).toEqual(['st.orders'])
    expect(byNamespace.body.messages.total).toBe(6)
  })

  it('buckets an explicit range and interval', async () => {
    const to = new Date()
    const from = new Date(to.getTime() - 2 * 86_400_000)
    const response = await http(
      broker,
      'GET',
      `/api/v1/status?from=${from.toISOString()}&to=${to.toISOString()}&interval=hour`,
    )
    expect(response.status).toBe(200)
    expect(response.body.bucketMinutes).toBe(60)
    expect(response.body.pointCount).toBeGreaterThanOrEqual(48)
    expect(response.body.pointCount).toBeLessThanOrEqual(49)
    expect(response.body.throughput.every((p: any) => p.timestamp.endsWith(':00:00Z'))).toBe(true)
    expect(response.body.throughput.reduce((total: number, p: any) => total + p.ingested, 0)).toBe(7)
  })

  it.each([
    ['from=yesterday', 'from: must be an ISO 8601 timestamp'],
    ['to=2026-13-01T00:00:00Z', 'to: must be an ISO 8601 timestamp'],
    ['from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z', 'from: must not be later than to'],
    ['interval=week', 'interval: must be minute, hour or day'],
    ['from=2020-01-01T00:00:00Z&to=2022-01-01T00:00:00Z&interval=minute', 'interval: minute buckets'],
    ['queue=bad/name', 'queue: must be 1-255 characters'],
    ['from=2026-01-01T00:00:00Z&from=2026-01-02T00:00:00Z', 'from: must be given once'],
  ])('answers 400 naming the parameter for %s', async (query, message) => {
    const response = await http(broker, 'GET', `/api/v1/status?${query}`)
    expect(response.status).toBe(400)
    expect(response.body.error).toContain(message)
    expect(response.body.code).toBe('QUEEN_ERR_VALIDATION')
  })
})

describe('GET /api/v1/status/queues', () => {
  it('lists queues newest first with snapshot counters and pagination', async () => {
    const response = await http(broker, 'GET', '/api/v1/status/queues?limit=1')
    expect(response.status).toBe(200)
    expect(response.body.pagination).toEqual({ limit: 1, offset: 0 })
    expect(response.body.queues).toHaveLength(1)
    const all = await http(broker, 'GET', '/api/v1/status/queues')
    const orders = all.body.queues.find((queue: any) => queue.name === 'st.orders')
    expect(Object.keys(orders).sort()).toEqual(
      ['id', 'name', 'namespace', 'task', 'createdAt', 'partitions', 'messages'].sort(),
    )
    expect(orders.createdAt).toMatch(MS_TIMESTAMP)
    expect(orders).toMatchObject({ partitions: 3, messages: { total: 6, pending: 3, processing: 1 } })
    const filtered = await http(broker, 'GET', '/api/v1/status/queues?namespace=st')
    expect(filtered.body.queues.map((queue: any) => queue.name)).toEqual(['st.orders'])
  })

  it.each([
    ['limit=0', 'limit: must be between 1 and 10000'],
    ['offset=-1', 'offset: must be between'],
    ['limit=ten', 'limit: must be an integer'],
    ['from=nope', 'from: must be an ISO 8601 timestamp'],
  ])('answers 400 for %s', async (query, message) => {
    const response = await http(broker, 'GET', `/api/v1/status/queues?${query}`)
    expect(response.status).toBe(400)
    expect(response.body.error).toContain(message)
  })
})

describe('GET /api/v1/status/queues/:queue', () => {
  it('describes the queue, its partitions with counters and cursors, and totals', async () => {
    const response = await http(broker, 'GET', '/api/v1/status/queues/st.orders?includePartitions=true')
    expect(response.status).toBe(200)
    const body = response.body
    expect(Object.keys(body).sort()).toEqual(['partitions', 'queue', 'totals'])
    expect(body.queue).toMatchObject({
      name: 'st.orders',
      namespace: 'st',
      task: 'orders',
      priority: 0,
      config: { leaseTime: 300, retryLimit: 0, retryDelay: 1000, ttl: null, maxQueueSize: 0, deadLetterQueue: false },
    })
    expect(Object.keys(body.queue).sort()).toEqual(
      ['id', 'name', 'namespace', 'task', 'priority', 'createdAt', 'config'].sort(),
    )
    expect(body.partitions.map((partition: any) => partition.name)).toEqual(['Default', 'p1', 'p2'])
    const [empty, p1, p2] = body.partitions
    expect(empty.messages).toEqual({ total: 0, pending: 0, processing: 0, completed: 0, failed: 0, deadLetter: 0 })
    expect(empty.oldestMessage).toBeNull()
    expect(Object.keys(p1).sort()).toEqual(
      [
        'id',
        'name',
        'createdAt',
        'messages',
        'stats',
        'cursor',
        'lastActivity',
        'oldestMessage',
        'newestMessage',
      ].sort(),
    )
    expect(p1.messages).toEqual({ total: 4, pending: 2, processing: 0, completed: 1, failed: 0, deadLetter: 1 })
    expect(p1.stats).toEqual(p1.messages)
    expect(p1.cursor).toEqual({ totalConsumed: 1, batchesConsumed: 2 })
    expect(p1.oldestMessage).toMatch(MS_TIMESTAMP)
    expect(p2.messages).toEqual({ total: 2, pending: 1, processing: 1, completed: 0, failed: 0, deadLetter: 0 })
    expect(body.totals).toEqual({
      messages: { total: 6, pending: 3, processing: 1, completed: 1, failed: 0, deadLetter: 1 },
      total: 6,
      pending: 3,
      processing: 1,
      completed: 1,
      failed: 0,
      deadLetter: 1,
    })
  })

  it('answers 404 for an unknown queue and 400 for a bad name', async () => {
    const missing = await http(broker, 'GET', '/api/v1/status/queues/nope')
    expect(missing.status).toBe(404)
    expect(missing.body.error).toBe('Queue not found')
    const bad = await http(broker, 'GET', '/api/v1/status/queues/.bad')
    expect(bad.status).toBe(400)
  })
})

describe('GET /api/v1/status/queues/:queue/messages', () => {
  it('lists messages newest first with their status', async () => {
    const response = await http(broker, 'GET', '/api/v1/status/queues/st.orders/messages')
    expect(response.status).toBe(200)
    expect(response.body).toHaveLength(6)
    const first = response.body[0]
    expect(Object.keys(first).sort()).toEqual(
      ['id', 'transactionId', 'partitionId', 'queuePath', 'queue', 'partition', 'status', 'createdAt'].sort(),
    )
    expect(first.createdAt).toMatch(MS_TIMESTAMP)
    // Newest first: reversed, each partition's messages are in push order.
    const byPartition = (name: string) =>
      response.body
        .filter((message: any) => message.partition === name)
        .reverse()
        .map((message: any) => message.status)
    // p1: completed, dead-lettered, two waiting; p2: leased, waiting.
    expect(byPartition('p1')).toEqual(['completed', 'dead_letter', 'pending', 'pending'])
    expect(byPartition('p2')).toEqual(['processing', 'pending'])
    expect(response.body.every((message: any) => message.queuePath === `st.orders/${message.partition}`)).toBe(true)
    const page = await http(broker, 'GET', '/api/v1/status/queues/st.orders/messages?limit=2&offset=1')
    expect(page.body.map((message: any) => message.id)).toEqual(response.body.slice(1, 3).map((m: any) => m.id))
  })

  it('answers 404 for an unknown queue and 400 for a bad limit', async () => {
    expect((await http(broker, 'GET', '/api/v1/status/queues/nope/messages')).status).toBe(404)
    const bad = await http(broker, 'GET', '/api/v1/status/queues/st.orders/messages?limit=0')
    expect(bad.status).toBe(400)
    expect(bad.body.error).toContain('limit')
  })
})

describe('GET /api/v1/status/analytics', () => {
  it('answers pushed messages per hour over the last day by default', async () => {
    const response = await http(broker, 'GET', '/api/v1/status/analytics')
    expect(response.status).toBe(200)
    expect(Object.keys(response.body).sort()).toEqual(['dataPoints', 'from', 'interval', 'to'])
    expect(response.body.interval).toBe('hour')
    expect(Date.parse(response.body.to) - Date.parse(response.body.from)).toBe(86_400_000)
    expect(response.body.dataPoints.length).toBeGreaterThanOrEqual(24)
    for (const point of response.body.dataPoints) {
      expect(Object.keys(point).sort()).toEqual(['messages', 'timestamp'])
      expect(point.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:00:00Z$/)
    }
    expect(response.body.dataPoints.reduce((total: number, p: any) => total + p.messages, 0)).toBe(7)
  })

  it('honours interval and the queue filter', async () => {
    const response = await http(broker, 'GET', '/api/v1/status/analytics?interval=minute&from=now&queue=st.orders')
    // from = to = now: the one bucket holding now.
    expect(response.status).toBe(200)
    expect(response.body.interval).toBe('minute')
    expect(response.body.dataPoints).toHaveLength(1)
    const hour = await http(
      broker,
      'GET',
      `/api/v1/status/analytics?interval=minute&queue=st.orders&from=${new Date(Date.now() - 3_600_000).toISOString()}`,
    )
    expect(hour.body.dataPoints.reduce((total: number, p: any) => total + p.messages, 0)).toBe(6)
  })

  it('answers 400 for a bad interval', async () => {
    const response = await http(broker, 'GET', '/api/v1/status/analytics?interval=fortnight')
    expect(response.status).toBe(400)
    expect(response.body.error).toBe('interval: must be minute, hour or day')
  })
})

describe('the stats job', () => {
  it('runs on its interval once started, and the snapshot follows the data', async () => {
    const local = await startTestBroker({ label: 'status_job', config: { jobs: { statsIntervalMs: 50 } } })
    try {
      const job = local.services.observability.statsJob
      await push(local, [{ queue: 'job-q', payload: 1 }])
      job.start()
      await expect
        .poll(async () => (await http(local, 'GET', '/api/v1/status/queues')).body.queues[0]?.messages.total, {
          timeout: 5000,
        })
        .toBe(1)
      await job.stop()
      expect(local.services.observability.jobs.map((service) => service.name)).toEqual([
        'stats',
        'metrics',
        'stats-log',
      ])
    } finally {
      await local.close()
    }
  })
})
