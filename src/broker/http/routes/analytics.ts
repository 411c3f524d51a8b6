/**
 * Analytics (docs/http-api.md, "Status and analytics", routes 42, 43, 45-48): time series read from the per-minute
 * metrics every replica writes (docs/operations.md, "Per-minute metrics in PostgreSQL") and from the retention history.
 * `from`/`to` default to the last hour; the bucket width is chosen from the range unless `interval` (minute, hour, day)
 * names one. Bucket timestamps carry no fraction (docs/http-api.md, "Timestamps"). PostgreSQL statistics (route 44) are
 * in analytics-postgres.ts.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { bucketTimestamp } from '../../observe/time-buckets.js'
import {
  readParkedPops,
  readQueueLag,
  readQueueOps,
  readRetentionHistory,
  readSystemMetrics,
  type RetentionKind,
} from '../../store/analytics.js'
import { tenantOf } from '../tenant.js'
import { queryValue, type Query } from '../validation/query.js'
import { checkQueueName, checkText } from '../validation/rules.js'
import { bucketMinutes, HOUR_MS, parseInterval, parseTimeRange, timeRangeBody } from '../validation/time-range.js'
import type { ParkedAnswer, QueueLagRow, QueueOpsAnswer, RetentionAnswer, SystemMetricsAnswer } from '../../../wire/index.js'

/** The series window of a request: the range, its bucket width and the store's window (tenant, optional queue). */
function seriesWindow(request: FastifyRequest) {
  const query = request.query as Query
  const range = parseTimeRange(query, HOUR_MS)
  const minutes = bucketMinutes(range, parseInterval(query))
  const queue = queryValue(query, 'queue')
  const tenant = tenantOf(request)
  const checkedQueue = queue === undefined ? null : checkQueueName(queue, 'queue')
  return {
    query,
    range,
    minutes,
    window: { tenant, from: range.from, to: range.to, bucketMinutes: minutes, queue: checkedQueue },
  }
}

const twoDecimals = (value: number) => Math.round(value * 100) / 100

/** Kinds of retention history rows, as the `totals` keys name them. */
const RETENTION_TOTAL_KEYS = {
  retention: 'retention',
  completed: 'completedRetention',
  eviction: 'eviction',
  partitions: 'partitions',
} as const satisfies Record<RetentionKind, string>

export function registerAnalyticsRoutes(app: FastifyInstance): void {
  const systemMetrics = async (request: FastifyRequest) => {
    const { query, range, minutes } = seriesWindow(request)
    const hostname = queryValue(query, 'hostname')
    const workerId = queryValue(query, 'workerId')
    const rows = await readSystemMetrics(app.broker.pool, {
      from: range.from,
      to: range.to,
      bucketMinutes: minutes,
      hostname: hostname === undefined ? null : checkText(hostname, 'hostname', 255),
      serverId: workerId === undefined ? null : checkText(workerId, 'workerId', 255),
    })
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
    } satisfies SystemMetricsAnswer
  }
  // Each broker process is one worker, so both routes answer the same per-replica series.
  app.get('/api/v1/analytics/system-metrics', systemMetrics)
  app.get('/api/v1/analytics/worker-metrics', systemMetrics)

  app.get('/api/v1/analytics/queue-lag', async (request) => {
    const rows = await readQueueLag(app.broker.pool, seriesWindow(request).window)
    return rows.map((row) => ({
      queueName: row.queue_name,
      popCount: row.pop_count,
      avgLagMs: Math.round(row.avg_lag_ms),
      maxLagMs: row.max_lag_ms,
      bucketTime: bucketTimestamp(row.bucket),
    })) satisfies QueueLagRow[]
  })

  app.get('/api/v1/analytics/queue-ops', async (request) => {
    const { range, minutes, window } = seriesWindow(request)
    const rows = await readQueueOps(app.broker.pool, window)
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
    } satisfies QueueOpsAnswer
  })

  // With `queue`, the pops parked on that queue per replica; without, every parked pop of each replica, or
  // with tenancy on those on the caller's queues (a replica's total counts every tenant's pops).
  app.get('/api/v1/analytics/queue-parked-replicas', async (request) => {
    const { range, minutes, window } = seriesWindow(request)
    const wholeReplica = app.broker.config.tenancy.header === undefined
    const rows = await readParkedPops(app.broker.pool, { ...window, wholeReplica })
    const replicas = new Map<string, { serverId: string; series: { bucketTime: string; parkedPops: number }[] }>()
    for (const row of rows) {
      const replica = replicas.get(row.server_id) ?? { serverId: row.server_id, series: [] }
      replica.series.push({ bucketTime: bucketTimestamp(row.bucket), parkedPops: row.parked_pops })
      replicas.set(row.server_id, replica)
    }
    return { timeRange: timeRangeBody(range), bucketMinutes: minutes, replicas: [...replicas.values()] } satisfies ParkedAnswer
  })

  app.get('/api/v1/analytics/retention', async (request) => {
    const { range, minutes, window } = seriesWindow(request)
    const rows = await readRetentionHistory(app.broker.pool, window)
    const totals = { retention: 0, completedRetention: 0, eviction: 0, partitions: 0 }
    for (const row of rows) totals[RETENTION_TOTAL_KEYS[row.kind]] += row.deleted
    return {
      timeRange: timeRangeBody(range),
      bucketMinutes: minutes,
      series: rows.map((row) => ({ bucketTime: bucketTimestamp(row.bucket), kind: row.kind, deleted: row.deleted })),
      totals,
    } satisfies RetentionAnswer
  })
}
