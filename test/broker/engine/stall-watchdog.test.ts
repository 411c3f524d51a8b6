/**
 * The stall watchdog (src/broker/engine/stall-watchdog.ts) against a real PostgreSQL through a fault proxy:
 * a statement stuck on a silent network fails at once as an outage, and a slow statement on a reachable
 * server is left to finish. The broker-level proof, with pushes spooled, is in test/reliability/outage.test.ts.
 */
import pg from 'pg'
import pino from 'pino'
import { afterEach, expect, it } from 'vitest'
import { StallWatchdog } from '../../../src/broker/engine/stall-watchdog.js'
import { classifyPgError } from '../../../src/platform/postgres/pg-errors.js'
import { HealthProbe } from '../../../src/platform/postgres/health-probe.js'
import { serverConnection } from '../../support/database.js'
import { startFaultProxy, type FaultProxy } from '../../support/fault-proxy.js'

const closers: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close()
})

async function setup(): Promise<{ proxy: FaultProxy; pool: pg.Pool; downs: Error[] }> {
  const server = serverConnection()
  const proxy = await startFaultProxy({ host: String(server.host), port: Number(server.port) })
  closers.push(() => proxy.close())
  const config = { ...server, host: '127.0.0.1', port: proxy.port }
  const pool = new pg.Pool({ ...config, max: 2, query_timeout: 60_000 })
  pool.on('error', () => undefined)
  pool.on('connect', (client) => client.on('error', () => undefined))
  closers.push(() => pool.end().catch(() => undefined))
  const probe = new HealthProbe(config)
  closers.push(() => probe.close().catch(() => undefined))
  const downs: Error[] = []
  const watchdog = new StallWatchdog(
    { pool, probe, markDown: (error) => downs.push(error), log: pino({ level: 'silent' }) },
    { stallMs: 500, intervalMs: 200 },
  )
  closers.push(() => watchdog.stop())
  return { proxy, pool, downs }
}

it('fails a statement stuck on a silent network as an outage, long before its own deadline', async () => {
  const { proxy, pool, downs } = await setup()
  await pool.query('select 1')
  proxy.setMode('blackhole')
  const started = Date.now()
  const error = await pool.query('select 1').then(
    () => undefined,
    (failure: unknown) => failure,
  )
  expect(error).toBeInstanceOf(Error)
  expect(classifyPgError(error)).toBe('unavailable')
  // Stall 0.5 s, then the probe's kept connection and a fresh one, 2 s each: far from the 60 s deadline.
  expect(Date.now() - started).toBeLessThan(10_000)
  expect(downs).toHaveLength(1)
  proxy.setMode('pass')
  expect((await pool.query<{ one: number }>('select 1 as one')).rows).toEqual([{ one: 1 }])
})

it('leaves a slow statement on a reachable server to finish', async () => {
  const { pool, downs } = await setup()
  const result = await pool.query<{ done: string }>("select pg_sleep(2), 'finished' as done")
  expect(result.rows[0]?.done).toBe('finished')
  expect(downs).toEqual([])
})
