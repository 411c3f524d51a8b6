/**
 * Analytics (http-api.md 9, routes 42, 43, 45-48): time series read from the per-minute metrics every
 * replica writes (operations.md 12.3) and from the retention history. `from`/`to` default to the last hour;
 * the bucket width is chosen from the range unless `interval` (minute, hour, day) names one. Bucket
 * timestamps carry no fraction (http-api.md 2.7). PostgreSQL statistics (route 44) are in
 * analytics-postgres.ts.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { runQuery } from '../../db/pool.js'
import { bucketTimestamp } from '../../observe/time-buckets.js'
import { tenantOf } from '../tenant.js'
import { queryValue, type Query } from '../validation/query.js'
import { checkQueueName, checkText } from '../validation/rules.js'
import { bucketMinutes, HOUR_MS, parseInterval, parseTimeRange, timeRangeBody } from '../validation/time-range.js'

interface SystemRow {
  bucket: Date
  server_id: string
  hostname: string
  pid: number
  cpu_user_percent: number
  cpu_system_percent: number
  rss_bytes: number
  heap_used_bytes: number
  event_loop_lag_p99_ms: number
  pool_total: number
  pool_idle: number
  pool_waiting: number
  requests: number
  parked_pops: number
}

interface QueueOpsRow {
  bucket: Date
  queue_name: string
  push: number
  pop: number
  ack: number
  failed: number
  dlq: number
}

/** The series window of a request: tenant, range, bucket width and the optional queue filter. */
function seriesWindow(request: FastifyRequest) {
  const query = request.query as Query
  const range = parseTimeRange(query, HOUR_MS)
  const minutes = bucketMinutes(range, parseInterval(query))
  const queue = queryValue(query, 'queue')
  return {
    query,
    tenant: tenantOf(request),
    range,
    minutes,
    queue: queue === undefined ? null : checkQueueName(queue, 'queue'),
  }
}

const twoDecimals = (value: number) => Math.round(value * 100) / 100

/** Kinds of retention history rows, as the `totals` keys name them. */
const RETENTION_TOTAL_KEYS = {
  retention: 'retention',
  completed: 'completedRetention',
  eviction: 'eviction',
  partitions: 'partitions',
} as const

export function registerAnalyticsRoutes(app: FastifyInstance): void {
  const systemMetrics = async (request: FastifyRequest) => {
    const { query, range, minutes } = seriesWindow(request)
    const hostname = queryValue(query, 'hostname')
    const workerId = queryValue(query, 'workerId')
    const rows = await runQuery<SystemRow>(app.broker.pool, 'analyticsSystem', [
      range.from,
      range.to,
      minutes,
      hostname === undefined ? null : checkText(hostname, 'hostname', 255),
      workerId === undefined ? null : checkText(workerId, 'workerId', 255),
    ])
    return {
      timeRange: timeRangeBody(range),
      bucketMinutes: minutes,
      series: rows.map((row) => ({
        timestamp: bucketTimestamp(row.bucket),
        serverId: row.server_id,
        hostname: row.hostname,
        pid: row.pid,
        cpuUserPercent: twoDecimals(row.cpu_user_percent),
        cpuSystemPercent: twoDecimals(row.cpu_system_percent),
        rssBytes: row.rss_bytes,
        heapUsedBytes: row.heap_used_bytes,
        eventLoopLagP99Ms: twoDecimals(row.event_loop_lag_p99_ms),
        poolTotal: row.pool_total,
        poolIdle: Math.round(row.pool_idle),
        poolWaiting: row.pool_waiting,
        requests: row.requests,
        parkedPops: row.parked_pops,
      })),
    }
  }
  // Each broker process is one worker, so both routes answer the same per-replica series.
  app.get('/api/v1/analytics/system-metrics', systemMetrics)
  app.get('/api/v1/analytics/worker-metrics', systemMetrics)

  app.get('/api/v1/analytics/queue-lag', async (request) => {
    const { tenant, range, minutes, queue } = seriesWindow(request)
    const rows = await runQuery<{
      bucket: Date
      queue_name: string
      pop_count: number
      avg_lag_ms: number
      max_lag_ms: number
    }>(app.broker.pool, 'analyticsQueueLag', [tenant, range.from, range.to, minutes, queue])
    return rows.map((row) => ({
      queueName: row.queue_name,
      popCount: row.pop_count,
      avgLagMs: Math.round(row.avg_lag_ms),
      maxLagMs: row.max_lag_ms,
      bucketTime: bucketTimestamp(row.bucket),
    }))
  })

  app.get('/api/v1/analytics/queue-ops', async (request) => {
    const { tenant, range, minutes, queue } = seriesWindow(request)
    const rows = await runQuery<QueueOpsRow>(app.broker.pool, 'analyticsQueueOps', [
      tenant,
      range.from,
      range.to,
      minutes,
      queue,
    ])
    const totals = new Map<
      string,
      { queueName: string; push: number; pop: number; ack: number; failed: number; dlq: number }
    >()
    for (const row of rows) {
      const total = totals.get(row.queue_name) ?? {
        queueName: row.queue_name,
        push: 0,
        pop: 0,
        ack: 0,
        failed: 0,
        dlq: 0,
      }
      total.push += row.push
      total.pop += row.pop
      total.ack += row.ack
      total.failed += row.failed
      total.dlq += row.dlq
      totals.set(row.queue_name, total)
    }
    return {
      timeRange: timeRangeBody(range),
      bucketMinutes: minutes,
      series: rows.map((row) => ({
        bucketTime: bucketTimestamp(row.bucket),
        queueName: row.queue_name,
        push: row.push,
        pop: row.pop,
        ack: row.ack,
        failed: row.failed,
        dlq: row.dlq,
      })),
      queues: [...totals.values()].sort((a, b) => a.queueName.localeCompare(b.queueName)),
    }
  })

  // With `queue`, the pops parked on that queue per replica; without, every parked pop of each replica.
  app.get('/api/v1/analytics/queue-parked-replicas', async (request) => {
    const { tenant, range, minutes, queue } = seriesWindow(request)
    const rows = await runQuery<{ bucket: Date; server_id: string; parked_pops: number }>(
      app.broker.pool,
      'analyticsParked',
      [tenant, range.from, range.to, minutes, queue],
    )
    const replicas = new Map<string, { serverId: string; series: { bucketTime: string; parkedPops: number }[] }>()
    for (const row of rows) {
      const replica = replicas.get(row.server_id) ?? { serverId: row.server_id, series: [] }
      replica.series.push({ bucketTime: bucketTimestamp(row.bucket), parkedPops: row.parked_pops })
      replicas.set(row.server_id, replica)
    }
    return { timeRange: timeRangeBody(range), bucketMinutes: minutes, replicas: [...replicas.values()] }
  })

  app.get('/api/v1/analytics/retention', async (request) => {
    const { tenant, range, minutes, queue } = seriesWindow(request)
    const rows = await runQuery<{ bucket: Date; kind: keyof typeof RETENTION_TOTAL_KEYS; deleted: number }>(
      app.broker.pool,
      'analyticsRetention',
      [tenant, range.from, range.to, minutes, queue],
    )
    const totals = { retention: 0, completedRetention: 0, eviction: 0, partitions: 0 }
    for (const row of rows) totals[RETENTION_TOTAL_KEYS[row.kind]] += row.deleted
    return {
      timeRange: timeRangeBody(range),
      bucketMinutes: minutes,
      series: rows.map((row) => ({ bucketTime: bucketTimestamp(row.bucket), kind: row.kind, deleted: row.deleted })),
      totals,
    }
  })
}
