import { describe, expect, it } from 'vitest'
import { MAX_RETAINED_MINUTES, MinuteCounters } from '../../../src/broker/observe/minute-counters.js'

const T0 = Date.parse('2026-04-26T10:00:30.000Z')

describe('MinuteCounters', () => {
  it('counts per minute, tenant and queue, and drains everything at once', () => {
    let now = T0
    const counters = new MinuteCounters(() => now)
    counters.queue('', 'a').push += 2
    counters.queue('', 'a').push += 1
    counters.queue('t2', 'a').push += 5
    counters.addRequest()
    now += 60_000
    counters.queue('', 'a').pop += 1
    counters.addRequest()
    counters.addRequest()
    const batch = counters.drain()
    expect(
      batch.queues.map((row) => [new Date(row.minute).toISOString(), row.tenant, row.queue, row.push, row.pop]),
    ).toEqual([
      ['2026-04-26T10:00:00.000Z', '', 'a', 3, 0],
      ['2026-04-26T10:00:00.000Z', 't2', 'a', 5, 0],
      ['2026-04-26T10:01:00.000Z', '', 'a', 0, 1],
    ])
    expect([...batch.requests.entries()]).toEqual([
      [Date.parse('2026-04-26T10:00:00.000Z'), 1],
      [Date.parse('2026-04-26T10:01:00.000Z'), 2],
    ])
    expect(counters.drain()).toEqual({ queues: [], requests: new Map() })
  })

  it('merges a batch given back with what was counted since', () => {
    const counters = new MinuteCounters(() => T0)
    const entry = counters.queue('', 'a')
    entry.pop += 2
    entry.lagSumMs += 30
    entry.lagMaxMs = 20
    counters.addRequest()
    const failed = counters.drain()
    const again = counters.queue('', 'a')
    again.pop += 1
    again.lagSumMs += 50
    again.lagMaxMs = 50
    counters.restore(failed)
    const batch = counters.drain()
    expect(batch.queues).toHaveLength(1)
    expect(batch.queues[0]).toMatchObject({ pop: 3, lagSumMs: 80, lagMaxMs: 50 })
    expect([...batch.requests.values()]).toEqual([1])
  })

  it('drops minutes older than the retention window when giving back', () => {
    let now = T0
    const counters = new MinuteCounters(() => now)
    counters.queue('', 'old').push += 1
    counters.addRequest()
    const failed = counters.drain()
    now += (MAX_RETAINED_MINUTES + 1) * 60_000
    counters.restore(failed)
    expect(counters.drain()).toEqual({ queues: [], requests: new Map() })
  })
})
