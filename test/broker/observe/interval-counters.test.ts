import { describe, expect, it } from 'vitest'
import { DURATION_SAMPLE_SIZE, IntervalCounters, percentile } from '../../../src/broker/observe/interval-counters.js'

describe('percentile', () => {
  it('is the nearest rank', () => {
    const values = Array.from({ length: 100 }, (_, index) => 100 - index)
    expect(percentile(values, 50)).toBe(50)
    expect(percentile(values, 99)).toBe(99)
    expect(percentile(values, 100)).toBe(100)
    expect(percentile([7], 99)).toBe(7)
    expect(percentile([], 50)).toBe(0)
  })
})

describe('IntervalCounters', () => {
  it('closes an interval with its length and percentiles and starts a new one', () => {
    let now = 1_000
    const counters = new IntervalCounters(() => now)
    counters.counts.push += 30
    counters.counts.requests += 4
    for (const duration of [1, 2, 3, 40]) counters.recordDuration(duration)
    now += 30_000
    const first = counters.take()
    expect(first).toMatchObject({ push: 30, requests: 4, elapsedMs: 30_000, requestP50Ms: 2, requestP99Ms: 40 })
    now += 5_000
    expect(counters.take()).toMatchObject({ push: 0, requests: 0, elapsedMs: 5_000, requestP50Ms: 0, requestP99Ms: 0 })
  })

  it('keeps a bounded, uniform sample of durations however many requests come', () => {
    let draws = 0
    // A deterministic "random" walk over the slots, enough to exercise replacement.
    const counters = new IntervalCounters(Date.now, () => ((draws++ * 7919) % 1000) / 1000)
    for (let i = 0; i < 3 * DURATION_SAMPLE_SIZE; i++) counters.recordDuration(i < DURATION_SAMPLE_SIZE ? 1 : 1000)
    const snapshot = counters.take()
    // Two thirds of all durations were 1000 ms: a uniform sample has its median there, not at 1 ms.
    expect(snapshot.requestP50Ms).toBe(1000)
    expect(snapshot.requestP99Ms).toBe(1000)
  })
})
