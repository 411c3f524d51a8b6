import pg from 'pg'
import pino from 'pino'
import { afterEach, describe, expect, it } from 'vitest'
import { createObservabilityJobs, type ObservabilityJobsOptions } from '../../../src/broker/jobs/observability-jobs.js'
import { BrokerEvents } from '../../../src/broker/observe/broker-events.js'
import { createObservability } from '../../../src/broker/observe/observability.js'

const pools: pg.Pool[] = []
afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.end()))
})

function jobs(overrides: Partial<ObservabilityJobsOptions> = {}) {
  // Never connects: constructing the jobs reads nothing from PostgreSQL.
  const pool = new pg.Pool({ host: '127.0.0.1', port: 1 })
  pools.push(pool)
  const observability = createObservability({
    pool,
    events: new BrokerEvents(),
    waiters: { parked: 0 },
    serverId: 'unit',
    version: '1.2.3',
    metricsMaxQueues: 1000,
    startedAt: Date.now(),
    checkDatabase: () => Promise.resolve(true),
  })
  return createObservabilityJobs(observability, {
    pool,
    waiters: { parked: 0 },
    serverId: 'unit',
    statsIntervalMs: 10_000,
    metricsAggregateIntervalSeconds: 60,
    logStatsIntervalMs: 30_000,
    log: pino({ enabled: false }),
    ...overrides,
  })
}

describe('createObservabilityJobs', () => {
  it('creates the stats, metrics and log jobs, without the log job when its interval is 0', () => {
    expect(jobs().jobs.map((job) => job.name)).toEqual(['stats', 'metrics', 'stats-log'])
    const quiet = jobs({ logStatsIntervalMs: 0 })
    expect(quiet.jobs.map((job) => job.name)).toEqual(['stats', 'metrics'])
    expect(quiet.logJob).toBeUndefined()
  })

  it.each([
    [{ statsIntervalMs: 0 }, 'statsIntervalMs must be > 0'],
    [{ metricsAggregateIntervalSeconds: -1 }, 'metricsAggregateIntervalSeconds must be > 0'],
    [{ logStatsIntervalMs: Number.NaN }, 'logStatsIntervalMs must be >= 0'],
  ])('refuses %o at construction', (overrides, message) => {
    expect(() => jobs(overrides)).toThrow(message)
  })
})
