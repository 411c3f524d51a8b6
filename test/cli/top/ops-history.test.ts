/**
 * Rates from queue-ops answers (ops-history.ts): counters that only grow although each answer covers a
 * sliding window, rates as deltas over the trailing minute, and per-minute sparkline series.
 */
import { describe, expect, it } from 'vitest'
import {
  EMPTY_HISTORY,
  foldQueueOps,
  minuteSeries,
  queueRates,
  RATE_WINDOW_MS,
  SPARK_MINUTES,
  totalRates,
} from '../../../src/cli/top/ops-history.js'
import type { QueueOpsRow } from '../../../src/cli/top/wire.js'

const MINUTE = 60_000
const T0 = Date.parse('2026-03-01T10:00:00Z')

function row(minute: number, queueName: string, push: number, pop = 0): QueueOpsRow {
  return { bucketTime: new Date(T0 + minute * MINUTE).toISOString(), queueName, push, pop, ack: 0, failed: 0, dlq: 0 }
}

const answer = (...series: QueueOpsRow[]) => ({ bucketMinutes: 1, series })

describe('queue-ops rates', () => {
  it('has no rate before the second answer, then the delta per second', () => {
    let history = foldQueueOps(EMPTY_HISTORY, answer(row(0, 'orders', 100)), T0 + 10_000)
    expect(queueRates(history).size).toBe(0)
    expect(totalRates(queueRates(history), history)).toBeUndefined()
    // 10 s later the minute has 50 more pushes: 5 per second.
    history = foldQueueOps(history, answer(row(0, 'orders', 150, 20)), T0 + 20_000)
    expect(queueRates(history).get('orders')).toEqual({ push: 5, pop: 2, ack: 0, failed: 0, dlq: 0 })
  })

  it('counts a minute that left the answer window with its last value, so the counter never drops', () => {
    let history = foldQueueOps(EMPTY_HISTORY, answer(row(0, 'orders', 60), row(1, 'orders', 60)), T0 + 90_000)
    // A later answer re-reads only minute 1 and 2: minute 0 keeps its 60.
    history = foldQueueOps(history, answer(row(1, 'orders', 60), row(2, 'orders', 30)), T0 + 150_000)
    expect(queueRates(history).get('orders')?.push).toBe(30 / 60)
  })

  it('measures over the trailing minute once there is a minute of samples', () => {
    let history = EMPTY_HISTORY
    for (let second = 0; second <= 120; second += 10) {
      // 2 pushes per second up to 60 s, then none.
      const pushed = Math.min(second, 60) * 2
      history = foldQueueOps(history, answer(row(0, 'orders', pushed)), T0 + second * 1000)
    }
    expect(history.samples.at(-1)!.at - history.samples[0]!.at).toBeLessThanOrEqual(RATE_WINDOW_MS + 10_000)
    expect(queueRates(history).get('orders')?.push).toBe(0)
  })

  it('folds minutes older than the sparkline span into the retired totals', () => {
    let history = foldQueueOps(EMPTY_HISTORY, answer(row(0, 'orders', 7)), T0 + 30_000)
    history = foldQueueOps(history, answer(), T0 + (SPARK_MINUTES + 2) * MINUTE)
    expect(history.buckets.get('orders')?.size).toBe(0)
    expect(history.retired.get('orders')?.push).toBe(7)
    expect(queueRates(history).get('orders')?.push).toBe(0)
  })

  it('sums every queue per minute for the sparklines, oldest first, ending with the current minute', () => {
    const now = T0 + 14 * MINUTE + 5000
    const history = foldQueueOps(
      EMPTY_HISTORY,
      answer(row(14, 'orders', 3), row(14, 'audit', 4), row(13, 'orders', 1), row(0, 'orders', 9)),
      now,
    )
    const series = minuteSeries(history, 'push', now)
    expect(series).toHaveLength(SPARK_MINUTES)
    expect(series.slice(-2)).toEqual([1, 7])
    expect(series[0]).toBe(9)
  })
})
