import pg from 'pg'
import pino from 'pino'
import { afterEach, describe, expect, it } from 'vitest'
import { BrokerEvents } from '../../../src/broker/observe/broker-events.js'
import { createObservability, type ObservabilityOptions } from '../../../src/broker/observe/observability.js'

const pools: pg.Pool[] = []
afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.end()))
})

function options(overrides: Partial<ObservabilityOptions> = {}): ObservabilityOptions {
  // Never connects: constructing the observability reads nothing from PostgreSQL.
  const pool = new pg.Pool({ host: '127.0.0.1', port: 1 })
  pools.push(pool)
  return {
    pool,
    events: new BrokerEvents(),
    waiters: { parked: 0 },
    serverId: 'unit',
    version: '1.2.3',
    statsIntervalMs: 10_000,
    metricsAggregateIntervalSeconds: 60,
    logStatsIntervalMs: 30_000,
    metricsMaxQueues: 1000,
    startedAt: Date.now(),
    checkDatabase: () => Promise.resolve(true),
    log: pino({ enabled: false }),
    ...overrides,
  }
}

describe('createObservability', () => {
  it('creates the stats, metrics and log jobs, without the log job when its interval is 0', () => {
    expect(createObservability(options()).jobs.map((job) => job.name)).toEqual(['stats', 'metrics', 'stats-log'])
    const quiet = createObservability(options({ logStatsIntervalMs: 0 }))
    expect(quiet.jobs.map((job) => job.name)).toEqual(['stats', 'metrics'])
    expect(quiet.logJob).toBeUndefined()
  })

  it.each([
    [{ statsIntervalMs: 0 }, 'statsIntervalMs must be > 0'],
    [{ metricsAggregateIntervalSeconds: -1 }, 'metricsAggregateIntervalSeconds must be > 0'],
    [{ logStatsIntervalMs: Number.NaN }, 'logStatsIntervalMs must be >= 0'],
    [{ metricsMaxQueues: 1.5 }, 'maxQueues must be an integer'],
  ])('refuses %o at construction', (overrides, message) => {
    expect(() => createObservability(options(overrides))).toThrow(message)
  })

  it('stops counting events once closed', () => {
    const events = new BrokerEvents()
    const observability = createObservability(options({ events }))
    events.emit('pushed', '', 'q', 'queued', 2)
    observability.close()
    events.emit('pushed', '', 'q', 'queued', 5)
    expect(observability.collector.totals.messages).toBe(2)
  })
})
