import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { http, startTestBroker, type TestBroker } from '../../support/broker.js'
import { ack, configure, pop, pushMany, sleep } from '../../support/queen.js'

const BUCKET_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/

let broker: TestBroker
beforeAll(async () => {
  broker = await startTestBroker({ label: 'analytics' })
  // an.a: 3 pushed, 2 delivered, 1 completed, 1 dead-lettered; an.b: 2 pushed.
  await configure(broker, 'an.a', { retryLimit: 0 })
  await pushMany(broker, 'an.a', 'Default', 3)
  await pushMany(broker, 'an.b', 'Default', 2)
  const popped = await pop(broker, 'an.a', { batch: 2 })
  await ack(broker, popped.messages[0])
  await ack(broker, popped.messages[1], { status: 'failed', error: 'nope' })
  await broker.services.observability.metricsJob.runOnce()
})
afterAll(async () => {
  await broker.close()
})

const flush = () => broker.services.observability.metricsJob.runOnce()

describe('GET /api/v1/analytics/system-metrics and /worker-metrics', () => {
  it.each(['system-metrics', 'worker-metrics'])('%s answers one process series per replica', async (route) => {
    const response = await http(broker, 'GET', `/api/v1/analytics/${route}`)
    expect(response.status).toBe(200)
    expect(Object.keys(response.body).sort()).toEqual(['bucketMinutes', 'series', 'timeRange'])
    expect(response.body.bucketMinutes).toBe(1)
    expect(response.body.series.length).toBeGreaterThanOrEqual(1)
    const point = response.body.series[0]
    expect(Object.keys(point).sort()).toEqual(
      [
        'timestamp',
        'serverId',
        'hostname',
        'pid',
        'cpuUserPercent',
        'cpuSystemPercent',
        'rssBytes',
        'heapUsedBytes',
        'eventLoopLagP99Ms',
        'poolTotal',
        'poolIdle',
        'poolWaiting',
        'requests',
        'parkedPops',
      ].sort(),
    )
    expect(point).toMatchObject({ serverId: 'test-broker', pid: process.pid, poolWaiting: 0, parkedPops: 0 })
    expect(point.timestamp).toMatch(BUCKET_TIMESTAMP)
    expect(point.rssBytes).toBeGreaterThan(0)
    expect(point.heapUsedBytes).toBeGreaterThan(0)
    expect(point.cpuUserPercent).toBeGreaterThanOrEqual(0)
    const requests = response.body.series.reduce((sum: number, p: any) => sum + p.requests, 0)
    // configure, two pushes, one pop and two acks before the flush.
    expect(requests).toBeGreaterThanOrEqual(6)
  })

  it('filters by hostname and workerId', async () => {
    const all = await http(broker, 'GET', '/api/v1/analytics/system-metrics')
    const hostname = all.body.series[0].hostname
    const byHost = await http(broker, 'GET', `/api/v1/analytics/system-metrics?hostname=${hostname}`)
    expect(byHost.body.series.length).toBe(all.body.series.length)
    const none = await http(broker, 'GET', '/api/v1/analytics/worker-metrics?workerId=someone-else')
    expect(none.body.series).toEqual([])
    const mine = await http(broker, 'GET', '/api/v1/analytics/worker-metrics?workerId=test-broker')
    expect(mine.body.series.length).toBe(all.body.series.length)
  })

  it('measures event-loop delay while the metrics job runs', async () => {
    // A long interval, so the sample that sees the block is the one runOnce writes (each sample resets the monitor).
    const local = await startTestBroker({ label: 'analytics_loop', config: { jobs: { metricsAggregateIntervalSeconds: 60 } } })
    try {
      local.services.observability.metricsJob.start()
      // Node's delay monitor records nothing for its first interval, so let it tick before blocking the loop.
      await sleep(50)
      // Block the event loop for a while so the monitor has something to see.
      const until = Date.now() + 60
      while (Date.now() < until) {
        // busy wait
      }
      await sleep(50)
      await local.services.observability.metricsJob.runOnce()
      await local.services.observability.metricsJob.stop()
      const response = await http(local, 'GET', '/api/v1/analytics/system-metrics')
      const worst = Math.max(...response.body.series.map((p: any) => p.eventLoopLagP99Ms))
      expect(worst).toBeGreaterThan(30)
    } finally {
      await local.close()
    }
  })
})

describe('GET /api/v1/analytics/queue-lag', () => {
  it('answers delivered messages and their lag per bucket and queue', async () => {
    const response = await http(broker, 'GET', '/api/v1/analytics/queue-lag')
    expect(response.status).toBe(200)
    expect(response.body).toHaveLength(1)
    const row = response.body[0]
    expect(Object.keys(row).sort()).toEqual(['avgLagMs', 'bucketTime', 'maxLagMs', 'popCount', 'queueName'])
    expect(row).toMatchObject({ queueName: 'an.a', popCount: 2 })
    expect(row.bucketTime).toMatch(BUCKET_TIMESTAMP)
    expect(row.avgLagMs).toBeGreaterThanOrEqual(0)
    expect(row.maxLagMs).toBeGreaterThanOrEqual(row.avgLagMs)
    const other = await http(broker, 'GET', '/api/v1/analytics/queue-lag?queue=an.b')
    expect(other.body).toEqual([])
  })
})

describe('GET /api/v1/analytics/queue-ops', () => {
  it('answers per-bucket operations and per-queue totals', async () => {
    const response = await http(broker, 'GET', '/api/v1/analytics/queue-ops')
    expect(response.status).toBe(200)
    expect(Object.keys(response.body).sort()).toEqual(['bucketMinutes', 'queues', 'series', 'timeRange'])
    expect(response.body.queues).toEqual([
      { queueName: 'an.a', push: 3, pop: 2, ack: 1, failed: 1, dlq: 1 },
      { queueName: 'an.b', push: 2, pop: 0, ack: 0, failed: 0, dlq: 0 },
    ])
    for (const row of response.body.series) {
      expect(Object.keys(row).sort()).toEqual(['ack', 'bucketTime', 'dlq', 'failed', 'pop', 'push', 'queueName'])
      expect(row.bucketTime).toMatch(BUCKET_TIMESTAMP)
    }
  })

  it('adds up several writes in one minute, and keeps counts a failed write could not store', async () => {
    const local = await startTestBroker({ label: 'analytics_writes' })
    try {
      const job = local.services.observability.metricsJob
      await pushMany(local, 'acc', 'Default', 2)
      await job.runOnce()
      await pushMany(local, 'acc', 'Default', 3)
      // PostgreSQL refuses the next write; the counts must wait for the one after.
      await local.db.query('ALTER TABLE queen.metrics_queue_minute RENAME TO metrics_queue_minute_away')
      await job.runOnce()
      await local.db.query('ALTER TABLE queen.metrics_queue_minute_away RENAME TO metrics_queue_minute')
      await job.runOnce()
      const response = await http(local, 'GET', '/api/v1/analytics/queue-ops?queue=acc')
      expect(response.body.queues).toEqual([{ queueName: 'acc', push: 5, pop: 0, ack: 0, failed: 0, dlq: 0 }])
      const rows = await local.db.query(
        "SELECT count(*)::int AS n, count(DISTINCT bucket)::int AS minutes FROM queen.metrics_queue_minute WHERE queue_name = 'acc'",
      )
      // One row per minute (the writes may straddle a minute boundary).
      expect(rows.rows[0].n).toBe(rows.rows[0].minutes)
    } finally {
      await local.close()
    }
  })

  it('widens buckets for long ranges and honours interval', async () => {
    const to = new Date()
    const from = new Date(to.getTime() - 7 * 86_400_000)
    const week = await http(
      broker,
      'GET',
      `/api/v1/analytics/queue-ops?from=${from.toISOString()}&to=${to.toISOString()}`,
    )
    expect(week.body.bucketMinutes).toBe(60)
    expect(week.body.series.every((row: any) => row.bucketTime.endsWith(':00:00Z'))).toBe(true)
    const daily = await http(broker, 'GET', `/api/v1/analytics/queue-ops?from=${from.toISOString()}&interval=day`)
    expect(daily.body.bucketMinutes).toBe(1440)
    expect(daily.body.series.every((row: any) => row.bucketTime.endsWith('T00:00:00Z'))).toBe(true)
    expect(daily.body.queues.find((queue: any) => queue.queueName === 'an.a').push).toBe(3)
  })
})

describe('GET /api/v1/analytics/queue-parked-replicas', () => {
  it('answers the most pops parked at once per replica and bucket', async () => {
    await configure(broker, 'an.empty')
    const parked = http(broker, 'GET', '/api/v1/pop/queue/an.empty?wait=true&timeout=3000')
    await expect.poll(() => broker.services.waiters.parked, { timeout: 2000 }).toBe(1)
    await flush()
    const response = await http(broker, 'GET', '/api/v1/analytics/queue-parked-replicas')
    expect(response.status).toBe(200)
    expect(Object.keys(response.body).sort()).toEqual(['bucketMinutes', 'replicas', 'timeRange'])
    expect(response.body.replicas).toHaveLength(1)
    const replica = response.body.replicas[0]
    expect(replica.serverId).toBe('test-broker')
    expect(Math.max(...replica.series.map((point: any) => point.parkedPops))).toBe(1)
    expect(Object.keys(replica.series[0]).sort()).toEqual(['bucketTime', 'parkedPops'])
    await pushMany(broker, 'an.empty', 'Default', 1)
    expect((await parked).body.messages).toHaveLength(1)
  })
})

describe('GET /api/v1/analytics/retention', () => {
  it('answers what retention deleted per bucket and kind, with totals', async () => {
    const minute = new Date(Math.floor(Date.now() / 60_000) * 60_000)
    // Rows as the retention cycle writes them (one per queue, kind and cycle).
    await broker.db.query(
      `INSERT INTO queen.retention_history (bucket, queue_name, kind, deleted) VALUES
       ($1, 'an.a', 'retention', 5), ($1, 'an.b', 'retention', 2), ($1, 'an.a', 'completed', 4),
       ($1, 'an.a', 'eviction', 1), ($1, 'an.b', 'partitions', 3)`,
      [minute],
    )
    const response = await http(broker, 'GET', '/api/v1/analytics/retention')
    expect(response.status).toBe(200)
    expect(Object.keys(response.body).sort()).toEqual(['bucketMinutes', 'series', 'timeRange', 'totals'])
    expect(response.body.totals).toEqual({ retention: 7, completedRetention: 4, eviction: 1, partitions: 3 })
    const bucketTime = minute.toISOString().replace('.000Z', 'Z')
    expect(response.body.series).toEqual([
      { bucketTime, kind: 'completed', deleted: 4 },
      { bucketTime, kind: 'eviction', deleted: 1 },
      { bucketTime, kind: 'partitions', deleted: 3 },
      { bucketTime, kind: 'retention', deleted: 7 },
    ])
    const old = await http(
      broker,
      'GET',
      '/api/v1/analytics/retention?from=2020-01-01T00:00:00Z&to=2020-01-02T00:00:00Z',
    )
    expect(old.body.series).toEqual([])
    expect(old.body.totals).toEqual({ retention: 0, completedRetention: 0, eviction: 0, partitions: 0 })
    expect(old.body.timeRange).toEqual({ from: '2020-01-01T00:00:00.000Z', to: '2020-01-02T00:00:00.000Z' })
  })
})

describe('GET /api/v1/analytics/postgres-stats', () => {
  it('answers every section from the statistics views of schema queen', async () => {
    const response = await http(broker, 'GET', '/api/v1/analytics/postgres-stats')
    expect(response.status).toBe(200)
    const body = response.body
    expect(Object.keys(body).sort()).toEqual(
      [
        'databaseCache',
        'tableCache',
        'indexCache',
        'cacheSummary',
        'deadTuples',
        'hotUpdates',
        'activeQueries',
        'autovacuumStatus',
        'bufferConfig',
        'bufferUsage',
        'tableSizes',
      ].sort(),
    )
    expect(body.databaseCache.database).toBe(broker.database)
    expect(body.databaseCache.blocksHit).toBeGreaterThan(0)
    expect(body.tableCache.map((row: any) => row.table)).toContain('messages')
    expect(body.indexCache.map((row: any) => row.index)).toContain('messages_pkey')
    // Backends flush per-table statistics lazily (up to seconds later), so only their consistency is certain.
    const tableHits = body.tableCache.reduce((sum: number, row: any) => sum + row.blocksHit, 0)
    expect(body.cacheSummary.tableBlocksHit).toBe(tableHits)
    expect(Object.keys(body.cacheSummary).sort()).toEqual(
      [
        'indexBlocksHit',
        'indexBlocksRead',
        'indexHitRatio',
        'tableBlocksHit',
        'tableBlocksRead',
        'tableHitRatio',
      ].sort(),
    )
    expect(body.deadTuples.map((row: any) => row.table)).toContain('partitions')
    expect(Object.keys(body.hotUpdates[0]).sort()).toEqual(['hotRatio', 'hotUpdates', 'table', 'updates'])
    expect(Array.isArray(body.activeQueries)).toBe(true)
    expect(body.autovacuumStatus.enabled).toBe(true)
    expect(body.bufferConfig.sharedBuffersBytes).toBeGreaterThan(0)
    expect(body.bufferConfig.maxConnections).toBeGreaterThan(0)
    expect(body.bufferUsage.buffersAllocated).toBeGreaterThanOrEqual(0)
    const messages = body.tableSizes.find((row: any) => row.table === 'messages')
    expect(messages.totalBytes).toBeGreaterThan(0)
    expect(messages.totalBytes).toBeGreaterThanOrEqual(messages.tableBytes)
  })
})

describe('bad input', () => {
  it.each([
    ['system-metrics?from=garbage', 'from: must be an ISO 8601 timestamp'],
    ['worker-metrics?to=2026-01-01T25:00:00Z', 'to: must be an ISO 8601 timestamp'],
    ['queue-lag?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z', 'from: must not be later than to'],
    ['queue-ops?interval=second', 'interval: must be minute, hour or day'],
    ['queue-parked-replicas?from=2000-01-01T00:00:00Z', 'from: the range must not exceed 3 years'],
    ['retention?queue=%2Fbad', 'queue: must be 1-255 characters'],
    ['system-metrics?hostname=a&hostname=b', 'hostname: must be given once'],
  ])('%s answers 400 naming the parameter', async (path, message) => {
    const response = await http(broker, 'GET', `/api/v1/analytics/${path}`)
    expect(response.status).toBe(400)
    expect(response.body.error).toContain(message)
  })
})
