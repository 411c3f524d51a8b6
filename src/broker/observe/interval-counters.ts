/**
 * What happened on this replica since the last periodic `rates` block (docs/operations.md, "Rates and sizes"): message
 * counts and a bounded sample of request durations for the percentiles.
 */

/** Counts of one interval. */
export interface IntervalCounts {
  /** Messages accepted (`queued` + `buffered`; duplicates excluded). */
  push: number
  /** Of which written to the spool. */
  buffered: number
  /** Messages delivered. */
  pop: number
  /** Messages settled `completed`. */
  ack: number
  /** Failures counted (failed acks plus lease expiries). */
  failed: number
  /** Messages dead-lettered. */
  dlq: number
  /** HTTP requests completed. */
  requests: number
}

/** One finished interval. */
export interface IntervalSnapshot extends IntervalCounts {
  /** Length of the interval, ms. */
  elapsedMs: number
  /** Request duration percentiles over the interval, ms (0 without requests). */
  requestP50Ms: number
  requestP99Ms: number
}

/** Durations kept per interval: enough for a stable p99, bounded whatever the request rate. */
export const DURATION_SAMPLE_SIZE = 10_000

function zeroCounts(): IntervalCounts {
  return { push: 0, buffered: 0, pop: 0, ack: 0, failed: 0, dlq: 0, requests: 0 }
}

/**
 * Nearest-rank percentile (`p` in (0, 100]) of `values`; 0 for an empty list. Sorts a copy.
 */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0
  const sorted = [...values].sort((a, b) => a - b)
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)))
  return sorted[rank - 1] ?? 0
}

/** Counters of the current interval; {@link take} closes it and starts the next. */
export class IntervalCounters {
  /** Counts of the interval in progress; observers add to them directly. */
  counts: IntervalCounts = zeroCounts()
  private durations: number[] = []
  private durationsSeen = 0
  private startedAt: number
  private readonly now: () => number
  private readonly random: () => number

  constructor(now: () => number = Date.now, random: () => number = Math.random) {
    this.now = now
    this.random = random
    this.startedAt = now()
  }

  /**
   * Records one request duration. Past {@link DURATION_SAMPLE_SIZE} durations a uniform reservoir sample is
   * kept (Vitter's algorithm R), so memory stays bounded at any request rate and percentiles stay unbiased.
   */
  recordDuration(durationMs: number): void {
    this.durationsSeen += 1
    if (this.durations.length < DURATION_SAMPLE_SIZE) {
      this.durations.push(durationMs)
      return
    }
    const slot = Math.floor(this.random() * this.durationsSeen)
    if (slot < DURATION_SAMPLE_SIZE) this.durations[slot] = durationMs
  }

  /** Closes the interval: returns its counts and percentiles, and starts a new one. */
  take(): IntervalSnapshot {
    const now = this.now()
    const snapshot: IntervalSnapshot = {
      ...this.counts,
      elapsedMs: Math.max(0, now - this.startedAt),
      requestP50Ms: percentile(this.durations, 50),
      requestP99Ms: percentile(this.durations, 99),
    }
    this.counts = zeroCounts()
    this.durations = []
    this.durationsSeen = 0
    this.startedAt = now
    return snapshot
  }
}
