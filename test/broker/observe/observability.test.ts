import pg from 'pg'
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
    metricsMaxQueues: 1000,
    startedAt: Date.now(),
    checkDatabase: () => Promise.resolve(true),
    ...overrides,
  }
}

describe('createObservability', () => {
  it('refuses a fractional metricsMaxQueues at construction', () => {
    expect(() => createObservability(options({ metricsMaxQueues: 1.5 }))).toThrow('maxQueues must be an integer')
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
