/**
 * The periodic `rates` and `sizes` log blocks (docs/operations.md, "Rates and sizes"). Their message and field names
 * are a contract operators grep for; these pure functions build the fields in the documented order, and the stats-log
 * job logs them as `log.info(fields, 'rates')` and `log.info(fields, 'sizes')`.
 */
import type { IntervalSnapshot } from './interval-counters.js'
import type { PoolCounts } from './system-sampler.js'

/** Fields of the `rates` line: per-second rates on this replica over the interval, one decimal. */
export interface RatesFields {
  interval_s: number
  push: number
  buffered: number
  pop: number
  ack: number
  failed: number
  dlq: number
  /** HTTP requests completed in the interval (a count, not a rate). */
  requests: number
  req_p50_ms: number
  req_p99_ms: number
}

/** Fields of the `sizes` line. */
export interface SizesFields {
  queues: number
  partitions: number
  pending: number
  parked_pops: number
  spool_records: number
  spool_bytes: number
  pool_total: number
  pool_idle: number
  pool_waiting: number
  /** Age of the stats snapshot the counts come from; null before the first refresh. */
  stats_age_s: number | null
}

/** What the `sizes` line reads. */
export interface SizesInput {
  /** Totals of the stats snapshot. */
  snapshot: { queues: number; partitions: number; pending: number }
  statsAgeSeconds: number | null
  parkedPops: number
  spool: { records: number; bytes: number }
  pool: PoolCounts
}

const oneDecimal = (value: number) => Math.round(value * 10) / 10

/** The `rates` fields of one finished interval. */
export function ratesFields(interval: IntervalSnapshot): RatesFields {
  const seconds = interval.elapsedMs / 1000
  const rate = (count: number) => (seconds > 0 ? oneDecimal(count / seconds) : 0)
  return {
    interval_s: Math.round(seconds),
    push: rate(interval.push),
    buffered: rate(interval.buffered),
    pop: rate(interval.pop),
    ack: rate(interval.ack),
    failed: rate(interval.failed),
    dlq: rate(interval.dlq),
    requests: interval.requests,
    req_p50_ms: oneDecimal(interval.requestP50Ms),
    req_p99_ms: oneDecimal(interval.requestP99Ms),
  }
}

/** The `sizes` fields. */
export function sizesFields(input: SizesInput): SizesFields {
  return {
    queues: input.snapshot.queues,
    partitions: input.snapshot.partitions,
    pending: input.snapshot.pending,
    parked_pops: input.parkedPops,
    spool_records: input.spool.records,
    spool_bytes: input.spool.bytes,
    pool_total: input.pool.totalCount,
    pool_idle: input.pool.idleCount,
    pool_waiting: input.pool.waitingCount,
    stats_age_s: input.statsAgeSeconds,
  }
}
