/**
 * Rates and sparklines from GET /api/v1/analytics/queue-ops, as pure reducers. Each answer gives per-minute
 * counts per queue for a recent window; folded into a counter per queue that only grows (minutes leaving
 * the window keep their last value), they become rates per second by the delta between the newest sample
 * and the oldest one within RATE_WINDOW_MS. The counts come from the per-minute metrics each replica writes
 * every METRICS_AGGREGATE_INTERVAL_S (60 s by default), so the rates follow that rhythm: a window of a
 * minute always spans one write.
 */
import type { QueueOpsAnswer } from './wire.js'

/** Counts of the five operations. */
export interface OpCounts {
  push: number
  pop: number
  ack: number
  failed: number
  dlq: number
}

/** Per-second rates of the five operations. */
export type OpRates = OpCounts

const OPS = ['push', 'pop', 'ack', 'failed', 'dlq'] as const

/** Trailing window over which a rate is measured, ms. */
export const RATE_WINDOW_MS = 60_000

/** Per-minute buckets kept for the sparklines (older ones fold into the retired totals). */
export const SPARK_MINUTES = 15

/** A counter sample: the time and each queue's counter. */
interface Sample {
  at: number
  counters: ReadonlyMap<string, OpCounts>
}

/** The folded history. */
export interface OpsHistory {
  /** Per queue, per bucket start (epoch ms): that minute's counts, as last answered. */
  buckets: ReadonlyMap<string, ReadonlyMap<number, OpCounts>>
  /** Per queue: counts of buckets that left the sparkline span. */
  retired: ReadonlyMap<string, OpCounts>
  /** Counter samples of the last RATE_WINDOW_MS (and the one just before it). */
  samples: readonly Sample[]
}

/** An empty history. */
export const EMPTY_HISTORY: OpsHistory = { buckets: new Map(), retired: new Map(), samples: [] }

const zero = (): OpCounts => ({ push: 0, pop: 0, ack: 0, failed: 0, dlq: 0 })

function add(into: OpCounts, counts: OpCounts): void {
  for (const op of OPS) into[op] += counts[op]
}

/** Folds one queue-ops answer received at `now` into the history; only its buckets are read. */
export function foldQueueOps(history: OpsHistory, answer: Pick<QueueOpsAnswer, 'bucketMinutes' | 'series'>, now: number): OpsHistory {
  const buckets = new Map<string, Map<number, OpCounts>>()
  for (const [queue, minutes] of history.buckets) buckets.set(queue, new Map(minutes))
  for (const row of answer.series) {
    const bucket = Date.parse(row.bucketTime)
    if (!Number.isFinite(bucket)) continue
    let minutes = buckets.get(row.queueName)
    if (!minutes) buckets.set(row.queueName, (minutes = new Map<number, OpCounts>()))
    minutes.set(bucket, { push: row.push, pop: row.pop, ack: row.ack, failed: row.failed, dlq: row.dlq })
  }
  const oldestKept = now - SPARK_MINUTES * 60_000
  const retired = new Map<string, OpCounts>()
  for (const [queue, counts] of history.retired) retired.set(queue, { ...counts })
  for (const [queue, minutes] of buckets) {
    for (const [bucket, counts] of minutes) {
      if (bucket + 60_000 > oldestKept) continue
      let total = retired.get(queue)
      if (!total) retired.set(queue, (total = zero()))
      add(total, counts)
      minutes.delete(bucket)
    }
  }
  const counters = new Map<string, OpCounts>()
  for (const queue of new Set([...buckets.keys(), ...retired.keys()])) {
    const total = { ...(retired.get(queue) ?? zero()) }
    for (const counts of buckets.get(queue)?.values() ?? []) add(total, counts)
    counters.set(queue, total)
  }
  // Keep the samples of the window and the newest one before it, the base of a full-window delta.
  const windowStart = now - RATE_WINDOW_MS
  const samples = [...history.samples, { at: now, counters }]
  const firstInside = samples.findIndex((sample) => sample.at >= windowStart)
  return { buckets, retired, samples: samples.slice(Math.max(0, firstInside - 1)) }
}

/**
 * The base sample of a rate: the newest sample at least RATE_WINDOW_MS old, else the oldest one. Undefined
 * until there are two samples.
 */
function baseSample(history: OpsHistory): Sample | undefined {
  const { samples } = history
  if (samples.length < 2) return undefined
  const last = samples[samples.length - 1]!
  let base = samples[0]!
  for (const sample of samples) {
    if (last.at - sample.at >= RATE_WINDOW_MS) base = sample
  }
  return base
}

/** Rates per second of every queue seen, from counter deltas; empty before the second sample. */
export function queueRates(history: OpsHistory): Map<string, OpRates> {
  const rates = new Map<string, OpRates>()
  const base = baseSample(history)
  const last = history.samples[history.samples.length - 1]
  if (!base || !last || last.at <= base.at) return rates
  const seconds = (last.at - base.at) / 1000
  for (const [queue, counts] of last.counters) {
    const before = base.counters.get(queue) ?? zero()
    const rate = zero()
    for (const op of OPS) rate[op] = Math.max(0, counts[op] - before[op]) / seconds
    rates.set(queue, rate)
  }
  return rates
}

/** Rates summed over queues; undefined before the second sample. */
export function totalRates(rates: ReadonlyMap<string, OpRates>, history: OpsHistory): OpRates | undefined {
  if (baseSample(history) === undefined) return undefined
  const total = zero()
  for (const rate of rates.values()) add(total, rate)
  return total
}

/**
 * Per-minute counts over every queue for the SPARK_MINUTES minutes ending with the minute of `now`, oldest
 * first (minutes without a row count 0).
 */
export function minuteSeries(history: OpsHistory, op: keyof OpCounts, now: number): number[] {
  const lastMinute = Math.floor(now / 60_000) * 60_000
  const series: number[] = Array.from({ length: SPARK_MINUTES }, () => 0)
  for (const minutes of history.buckets.values()) {
    for (const [bucket, counts] of minutes) {
      const index = SPARK_MINUTES - 1 - Math.round((lastMinute - bucket) / 60_000)
      if (index >= 0 && index < SPARK_MINUTES) series[index]! += counts[op]
    }
  }
  return series
}
