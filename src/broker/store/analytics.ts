/**
 * Analytics time series (analytics-* statements): per-replica process metrics and per-queue series read
 * from the per-minute metrics, and the retention history; buckets are epoch-aligned.
 */
import type pg from 'pg'
import { runQuery } from '../db/run-query.js'
import type { QueryName } from '../db/queries/index.js'

/** A time range cut into buckets. */
export interface SeriesRange {
  from: Date
  to: Date
  bucketMinutes: number
}

/** A per-queue series window of the tenant; a null queue reads every queue. */
export interface QueueSeriesWindow extends SeriesRange {
  tenant: string
  queue: string | null
}

/** One replica's process metrics in one bucket. */
export interface SystemMetricsRow {
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

/** Messages delivered in one bucket on one queue and their lag at delivery. */
export interface QueueLagRow {
  bucket: Date
  queue_name: string
  pop_count: number
  avg_lag_ms: number
  max_lag_ms: number
}

/** Operations on one queue in one bucket, summed over replicas. */
export interface QueueOpsRow {
  bucket: Date
  queue_name: string
  push: number
  pop: number
  ack: number
  failed: number
  dlq: number
}

/** The most pops parked at once on one replica in one bucket. */
export interface ParkedPopsRow {
  bucket: Date
  server_id: string
  parked_pops: number
}

/** Kinds of retention history rows. */
export type RetentionKind = 'retention' | 'completed' | 'eviction' | 'partitions'

/** What one kind of cleanup deleted in one bucket. */
export interface RetentionRow {
  bucket: Date
  kind: RetentionKind
  deleted: number
}

/** Each replica's process metrics; optionally of one hostname or server id. */
export async function readSystemMetrics(
  pool: pg.Pool,
  params: SeriesRange & { hostname: string | null; serverId: string | null },
): Promise<SystemMetricsRow[]> {
  // analytics-system.sql: $1 from, $2 to, $3 bucket minutes, $4 hostname, $5 server id.
  return runQuery<SystemMetricsRow>(pool, 'analyticsSystem', [
    params.from,
    params.to,
    params.bucketMinutes,
    params.hostname,
    params.serverId,
  ])
}

/** Runs a per-queue series statement: $1 tenant, $2 from, $3 to, $4 bucket minutes, $5 queue or NULL. */
async function queueSeries<Row extends pg.QueryResultRow>(
  pool: pg.Pool,
  name: QueryName,
  window: QueueSeriesWindow,
): Promise<Row[]> {
  return runQuery<Row>(pool, name, [window.tenant, window.from, window.to, window.bucketMinutes, window.queue])
}

/** Delivery lag per bucket and queue (analytics-queue-lag.sql), buckets with pops only. */
export async function readQueueLag(pool: pg.Pool, window: QueueSeriesWindow): Promise<QueueLagRow[]> {
  return queueSeries<QueueLagRow>(pool, 'analyticsQueueLag', window)
}

/** Pushes, pops, acks, failures and dead letters per bucket and queue (analytics-queue-ops.sql). */
export async function readQueueOps(pool: pg.Pool, window: QueueSeriesWindow): Promise<QueueOpsRow[]> {
  return queueSeries<QueueOpsRow>(pool, 'analyticsQueueOps', window)
}

/** Parked pops per replica and bucket (analytics-parked.sql): all of them, or those on `queue`. */
export async function readParkedPops(pool: pg.Pool, window: QueueSeriesWindow): Promise<ParkedPopsRow[]> {
  return queueSeries<ParkedPopsRow>(pool, 'analyticsParked', window)
}

/** What retention, eviction and partition cleanup deleted per bucket and kind (analytics-retention.sql). */
export async function readRetentionHistory(pool: pg.Pool, window: QueueSeriesWindow): Promise<RetentionRow[]> {
  return queueSeries<RetentionRow>(pool, 'analyticsRetention', window)
}
