/**
 * Status (docs/http-api.md, "Status and analytics", routes 36 and 40): GET /api/v1/status (the dashboard's overview)
 * and GET /api/v1/status/analytics. Time series come from the per-minute metrics every replica writes; counters from
 * the stats snapshot, with its age; requests and batching from this replica's counters. The per-queue status routes are
 * in status-queues.ts.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { bucketTimestamp, namedIntervalFor } from '../../observe/time-buckets.js'
import { readStatusOverview, readThroughput, type StatusFilter, type StatusWindow } from '../../store/status.js'
import { tenantOf } from '../tenant.js'
import { queryValue, type Query } from '../validation/query.js'
import { checkQueueName, checkText } from '../validation/rules.js'
import {
  bucketMinutes,
  HOUR_MS,
  parseInterval,
  parseTimeRange,
  timeRangeBody,
  type TimeRange,
} from '../validation/time-range.js'
import type { StatusAnalyticsAnswer, StatusAnswer } from '../../../wire/index.js'

/** Reads the optional `queue`, `namespace` and `task` filters. */
export function statusFilters(query: Query): StatusFilter {
  const queue = queryValue(query, 'queue')
  const namespace = queryValue(query, 'namespace')
  const task = queryValue(query, 'task')
  return {
    queue: queue === undefined ? null : checkQueueName(queue, 'queue'),
    namespace: namespace === undefined ? null : checkText(namespace, 'namespace', 255),
    task: task === undefined ? null : checkText(task, 'task', 255),
  }
}

/** The window and filters of a status read. */
function statusWindow(request: FastifyRequest, range: TimeRange, minutes: number): StatusWindow {
  const filter = statusFilters(request.query as Query)
  return { tenant: tenantOf(request), from: range.from, to: range.to, bucketMinutes: minutes, ...filter }
}

/** The request figures a tenant is shown: this replica's own count every tenant's requests. */
const NO_REQUESTS = { pushRequests: 0, popRequests: 0, ackRequests: 0, delivered: 0 } as const
const NO_BATCHES = { requests: 0, batches: 0 } as const

const twoDecimals = (value: number) => Math.round(value * 100) / 100
const ratio = (numerator: number, denominator: number) => (denominator > 0 ? twoDecimals(numerator / denominator) : 0)

export function registerStatusRoutes(app: FastifyInstance): void {
  app.get('/api/v1/status', async (request) => {
    const query = request.query as Query
    const broker = app.broker
    const range = parseTimeRange(query, HOUR_MS)
    const minutes = bucketMinutes(range, parseInterval(query))
    const overview = await readStatusOverview(broker.pool, statusWindow(request, range, minutes))
    const { throughput: points, totals, queues, leases, dlq, topErrors, workers } = overview

    const bucketSeconds = minutes * 60
    const rangeSeconds = Math.max(1, (range.to.getTime() - range.from.getTime()) / 1000)
    // This replica's request counters count every tenant's requests: a tenant is shown zeros (issue 40).
    const replicaWide = broker.config.tenancy.header === undefined
    const totalsOf = replicaWide ? broker.observability.collector.totals : NO_REQUESTS
    const pushBatching = replicaWide ? broker.push.batching : NO_BATCHES
    const ackBatching = replicaWide ? broker.ack.batching : NO_BATCHES
    const refreshedAt = totals?.refreshed_at ?? null
    return {
      timeRange: timeRangeBody(range),
      bucketMinutes: minutes,
      pointCount: points.length,
      throughput: points.map((point) => ({
        timestamp: bucketTimestamp(point.bucket),
        ingested: point.push,
        processed: point.ack,
        popMessages: point.pop,
        ingestedPerSecond: ratio(point.push, bucketSeconds),
        processedPerSecond: ratio(point.ack, bucketSeconds),
        popPerSecond: ratio(point.pop, bucketSeconds),
        avgLagMs: Math.round(point.avg_lag_ms),
        maxLagMs: point.max_lag_ms,
      })),
      queues: queues.map((row) => ({
        id: row.id,
        name: row.name,
        namespace: row.namespace,
        task: row.task,
        partitions: row.partitions,
        totalConsumed: row.total_consumed,
      })),
      messages: {
        total: totals?.total ?? 0,
        pending: totals?.pending ?? 0,
        processing: totals?.processing ?? 0,
        completed: totals?.completed ?? 0,
        failed: totals?.failed ?? 0,
        deadLetter: totals?.dead_letter ?? 0,
        // This replica's requests since it started, and how many requests one database round trip served
        // (for pop: messages per pop request).
        requests: { push: totalsOf.pushRequests, pop: totalsOf.popRequests, ack: totalsOf.ackRequests },
        batchEfficiency: {
          push: ratio(pushBatching.requests, pushBatching.batches),
          pop: ratio(totalsOf.delivered, totalsOf.popRequests),
          ack: ratio(ackBatching.requests, ackBatching.batches),
        },
      },
      leases: {
        active: leases?.active ?? 0,
        partitionsWithLeases: leases?.partitions_with_leases ?? 0,
        totalBatchSize: leases?.total_batch_size ?? 0,
        totalAcked: leases?.total_acked ?? 0,
      },
      deadLetterQueue: {
        totalMessages: dlq?.total_messages ?? 0,
        affectedPartitions: dlq?.affected_partitions ?? 0,
        topErrors: topErrors.map((row) => ({ error: row.error, count: row.count })),
      },
      workers: workers.map((row) => ({
        serverId: row.server_id,
        hostname: row.hostname,
        pid: row.pid,
        lastSeen: row.last_seen.toISOString(),
        pushPerSecond: ratio(row.push, rangeSeconds),
        popPerSecond: ratio(row.pop, rangeSeconds),
        ackPerSecond: ratio(row.ack, rangeSeconds),
      })),
      errors: {
        // Database errors are not counted per minute yet (no engine reports them as events).
        dbErrors: 0,
        ackFailed: points.reduce((sum, point) => sum + point.failed, 0),
        dlqMessages: points.reduce((sum, point) => sum + point.dlq, 0),
      },
      statsAge: refreshedAt ? Math.max(0, Math.floor((Date.now() - refreshedAt.getTime()) / 1000)) : null,
    } satisfies StatusAnswer
  })

  app.get('/api/v1/status/analytics', async (request) => {
    const query = request.query as Query
    const range = parseTimeRange(query, 24 * HOUR_MS)
    const interval = parseInterval(query) ?? namedIntervalFor(range.to.getTime() - range.from.getTime())
    const minutes = bucketMinutes(range, interval)
    const points = await readThroughput(app.broker.pool, statusWindow(request, range, minutes))
    return {
      dataPoints: points.map((point) => ({ timestamp: bucketTimestamp(point.bucket), messages: point.push })),
      interval,
      ...timeRangeBody(range),
    } satisfies StatusAnalyticsAnswer
  })
}
