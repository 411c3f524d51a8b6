/**
 * In-memory per-minute counters of this replica (docs/operations.md, "Per-minute metrics in PostgreSQL"): per (minute,
 * tenant, queue) message counts and pop lag, and requests per minute. Events add to the minute they happen in, so the
 * rows the metrics job writes are exact whatever METRICS_AGGREGATE_INTERVAL_S is; the job drains them and gives them
 * back when PostgreSQL refused the write.
 */
import { minuteOf } from './time-buckets.js'

/** Counts of one queue in one minute. */
export interface QueueMinute {
  /** Start of the UTC minute, epoch ms. */
  minute: number
  tenant: string
  queue: string
  push: number
  pop: number
  ack: number
  failed: number
  dlq: number
  /** Sum of the delivered messages' ages at delivery, ms (average = lagSumMs / pop). */
  lagSumMs: number
  /** Largest age at delivery, ms. */
  lagMaxMs: number
}

/** What {@link MinuteCounters.drain} hands the writer. */
export interface MinuteBatch {
  queues: QueueMinute[]
  /** Requests per minute (epoch ms of the minute start). */
  requests: Map<number, number>
}

/**
 * Minutes older than this are dropped when a failed write is given back, so an outage of PostgreSQL cannot
 * grow the counters without bound; docs/operations.md, "Per-minute metrics in PostgreSQL" keeps no promise for minutes
 * the database missed.
 */
export const MAX_RETAINED_MINUTES = 60

/** Per-minute accumulators. */
export class MinuteCounters {
  private queues = new Map<string, QueueMinute>()
  private requests = new Map<number, number>()
  private readonly now: () => number

  constructor(now: () => number = Date.now) {
    this.now = now
  }

  /** The accumulator of one queue for the current minute (created on first use). */
  queue(tenant: string, queue: string): QueueMinute {
    const minute = minuteOf(this.now())
    const key = `${minute}\u0000${tenant}\u0000${queue}`
    let entry = this.queues.get(key)
    if (!entry) {
      entry = { minute, tenant, queue, push: 0, pop: 0, ack: 0, failed: 0, dlq: 0, lagSumMs: 0, lagMaxMs: 0 }
      this.queues.set(key, entry)
    }
    return entry
  }

  /** Counts one finished request in the current minute. */
  addRequest(): void {
    const minute = minuteOf(this.now())
    this.requests.set(minute, (this.requests.get(minute) ?? 0) + 1)
  }

  /** Takes everything counted so far and starts empty. */
  drain(): MinuteBatch {
    const batch = { queues: [...this.queues.values()], requests: this.requests }
    this.queues = new Map()
    this.requests = new Map()
    return batch
  }

  /** Gives back a batch whose write failed, merged with what was counted since; drops stale minutes. */
  restore(batch: MinuteBatch): void {
    const oldest = minuteOf(this.now()) - MAX_RETAINED_MINUTES * 60_000
    for (const entry of batch.queues) {
      if (entry.minute < oldest) continue
      const key = `${entry.minute}\u0000${entry.tenant}\u0000${entry.queue}`
      const current = this.queues.get(key)
      if (!current) {
        this.queues.set(key, entry)
        continue
      }
      current.push += entry.push
      current.pop += entry.pop
      current.ack += entry.ack
      current.failed += entry.failed
      current.dlq += entry.dlq
      current.lagSumMs += entry.lagSumMs
      current.lagMaxMs = Math.max(current.lagMaxMs, entry.lagMaxMs)
    }
    for (const [minute, count] of batch.requests) {
      if (minute < oldest) continue
      this.requests.set(minute, (this.requests.get(minute) ?? 0) + count)
    }
  }
}
