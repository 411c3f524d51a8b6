/**
 * The reads of the dashboard's status overview (status-throughput, -totals, -queues, -leases, -dlq,
 * -dlq-errors and -workers statements), run one after the other on the pool.
 */
import type pg from 'pg'
import { runQuery } from '../db/run-query.js'
import type { MessageCountersRow } from '../db/message-counters.js'

/** The queue/namespace/task filters shared by the status statements; null matches everything. */
export interface StatusFilter {
  queue: string | null
  namespace: string | null
  task: string | null
}

/** A time window cut into buckets, with the status filters. */
export interface StatusWindow extends StatusFilter {
  tenant: string
  from: Date
  to: Date
  bucketMinutes: number
}

/** One bucket of the throughput series, summed over replicas and queues. */
export interface ThroughputRow {
  bucket: Date
  push: number
  pop: number
  ack: number
  failed: number
  dlq: number
  avg_lag_ms: number
  max_lag_ms: number
}

/** Status counters from the stats snapshot, with the snapshot's time (null before the first refresh). */
export interface StatusTotalsRow extends MessageCountersRow {
  refreshed_at: Date | null
}

/** A queue with its partition count and the messages its groups consumed. */
export interface StatusQueueRow {
  id: string
  name: string
  namespace: string
  task: string
  partitions: number
  total_consumed: number
}

/** Live leases, the partitions they hold, the messages they cover and how many of those are settled. */
export interface StatusLeasesRow {
  active: number
  partitions_with_leases: number
  total_batch_size: number
  total_acked: number
}

/** DLQ entries and the partitions they come from. */
export interface StatusDlqRow {
  total_messages: number
  affected_partitions: number
}

/** A frequent DLQ error text. */
export interface DlqErrorCountRow {
  error: string
  count: number
}

/** A replica that wrote metrics in the range, with what it pushed, delivered and acknowledged. */
export interface StatusWorkerRow {
  server_id: string
  hostname: string
  pid: number
  last_seen: Date
  push: number
  pop: number
  ack: number
}

/** Everything the overview shows from PostgreSQL; a single-row read is undefined when it answered none. */
export interface StatusOverview {
  throughput: ThroughputRow[]
  totals: StatusTotalsRow | undefined
  queues: StatusQueueRow[]
  leases: StatusLeasesRow | undefined
  dlq: StatusDlqRow | undefined
  topErrors: DlqErrorCountRow[]
  workers: StatusWorkerRow[]
}

/** The throughput series: one point per bucket of the window, zeros where nothing happened. */
export async function readThroughput(pool: pg.Pool, window: StatusWindow): Promise<ThroughputRow[]> {
  // status-throughput.sql: $1 tenant, $2 from, $3 to, $4 bucket minutes, $5 queue, $6 namespace, $7 task.
  return runQuery<ThroughputRow>(pool, 'statusThroughput', [
    window.tenant,
    window.from,
    window.to,
    window.bucketMinutes,
    window.queue,
    window.namespace,
    window.task,
  ])
}

/** Reads every part of the overview. */
export async function readStatusOverview(pool: pg.Pool, window: StatusWindow): Promise<StatusOverview> {
  // status-totals, -queues, -leases, -dlq and -dlq-errors.sql: $1 tenant, $2 queue, $3 namespace, $4 task.
  const filtered = [window.tenant, window.queue, window.namespace, window.task]
  // One statement after the other: a dashboard poll should hold one pooled connection, not seven.
  const throughput = await readThroughput(pool, window)
  const [totals] = await runQuery<StatusTotalsRow>(pool, 'statusTotals', filtered)
  const queues = await runQuery<StatusQueueRow>(pool, 'statusQueues', filtered)
  const [leases] = await runQuery<StatusLeasesRow>(pool, 'statusLeases', filtered)
  const [dlq] = await runQuery<StatusDlqRow>(pool, 'statusDlq', filtered)
  const topErrors = await runQuery<DlqErrorCountRow>(pool, 'statusDlqErrors', filtered)
  // status-workers.sql: $1 tenant, $2 from, $3 to.
  const workers = await runQuery<StatusWorkerRow>(pool, 'statusWorkers', [window.tenant, window.from, window.to])
  return { throughput, totals, queues, leases, dlq, topErrors, workers }
}
