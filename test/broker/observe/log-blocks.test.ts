import { Writable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { logStatsBlocks } from '../../../src/broker/jobs/stats-log-job.js'
import { BrokerEvents } from '../../../src/broker/observe/broker-events.js'
import { ratesFields, sizesFields } from '../../../src/broker/observe/log-blocks.js'
import { createLogger } from '../../../src/platform/log/logger.js'
import { MetricsCollector } from '../../../src/broker/observe/metrics-collector.js'
import { StatsView } from '../../../src/broker/observe/stats-view.js'

describe('ratesFields', () => {
  it('turns an interval into per-second rates with one decimal, in the documented order', () => {
    const fields = ratesFields({
      elapsedMs: 30_000,
      push: 24_372,
      buffered: 0,
      pop: 24_303,
      ack: 24_297,
      failed: 6,
      dlq: 0,
      requests: 74_211,
      requestP50Ms: 3.14,
      requestP99Ms: 41.66,
    })
    expect(Object.keys(fields)).toEqual([
      'interval_s',
      'push',
      'buffered',
      'pop',
      'ack',
      'failed',
      'dlq',
      'requests',
      'req_p50_ms',
      'req_p99_ms',
    ])
    expect(fields).toEqual({
      interval_s: 30,
      push: 812.4,
      buffered: 0,
      pop: 810.1,
      ack: 809.9,
      failed: 0.2,
      dlq: 0,
      requests: 74_211,
      req_p50_ms: 3.1,
      req_p99_ms: 41.7,
    })
  })

  it('answers zero rates for an empty interval', () => {
    const fields = ratesFields({
      elapsedMs: 0,
      push: 5,
      buffered: 0,
      pop: 0,
      ack: 0,
      failed: 0,
      dlq: 0,
      requests: 0,
      requestP50Ms: 0,
      requestP99Ms: 0,
    })
    expect(fields.push).toBe(0)
  })
})

describe('sizesFields', () => {
  it('names the snapshot, replica and pool sizes in the documented order', () => {
    const fields = sizesFields({
      snapshot: { queues: 12, partitions: 3400, pending: 1520 },
      statsAgeSeconds: 4,
      parkedPops: 230,
      spool: { records: 0, bytes: 0 },
      pool: { totalCount: 20, idleCount: 17, waitingCount: 0 },
    })
    expect(Object.entries(fields)).toEqual([
      ['queues', 12],
      ['partitions', 3400],
      ['pending', 1520],
      ['parked_pops', 230],
      ['spool_records', 0],
      ['spool_bytes', 0],
      ['pool_total', 20],
      ['pool_idle', 17],
      ['pool_waiting', 0],
      ['stats_age_s', 4],
    ])
  })
})

describe('logStatsBlocks', () => {
  it('logs the rates and sizes lines from the event counters, as operators grep them', async () => {
    let now = Date.parse('2026-04-26T10:00:00.000Z')
    const events = new BrokerEvents()
    const collector = new MetricsCollector(events, now, () => now)
    events.emit('pushed', '', 'q', 'queued', 50)
    events.emit('pushed', '', 'q', 'buffered', 10)
    events.emit('pushed', '', 'q', 'duplicate', 7)
    events.emit('delivered', '', 'q', 20, [5, 10])
    events.emit('acked', '', 'q', 'completed', 15)
    events.emit('acked', '', 'q', 'failed', 2)
    events.emit('failed', '', 'q', 'nack', 2)
    events.emit('failed', '', 'q', 'lease_expired', 1)
    events.emit('deadLettered', '', 'q', 1)
    for (const duration of [2, 4, 6, 100]) events.emit('request', '/api/v1/push', 'POST', 200, duration)
    now += 10_000

    let output = ''
    const destination = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        output += chunk.toString('utf8')
        callback()
      },
    })
    const log = createLogger({ level: 'info', json: false, serverId: 'queen-0', destination })
    const stats = new StatsView()
    stats.system = { ...stats.system, queues: 3, partitions: 7, pending: 42, refreshedAt: new Date(Date.now() - 4000) }
    await logStatsBlocks(
      {
        collector,
        stats,
        pool: { totalCount: 20, idleCount: 17, waitingCount: 1 },
        waiters: { parked: 5 },
        spool: () => Promise.resolve({ records: 3, bytes: 4096 }),
      },
      log,
    )
    const lines = output.trim().split('\n')
    expect(lines).toHaveLength(2)
    expect(lines[0]).toMatch(
      /^\S+ INFO rates interval_s=10 push=6 buffered=1 pop=2 ack=1.5 failed=0.3 dlq=0.1 requests=4 req_p50_ms=4 req_p99_ms=100$/,
    )
    expect(lines[1]).toMatch(
      /^\S+ INFO sizes queues=3 partitions=7 pending=42 parked_pops=5 spool_records=3 spool_bytes=4096 pool_total=20 pool_idle=17 pool_waiting=1 stats_age_s=[45]$/,
    )
    collector.close()
  })
})
