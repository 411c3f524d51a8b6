/**
 * PostgreSQL outages, ledger-checked (docs/reliability.md, "Hazards"): a real `queenctl serve`
 * reaches PostgreSQL through a fault proxy the test switches off and on; producers push one request at a
 * time per partition and record every outcome; afterwards a consumer drains, and the ledger must show
 * every `queued`/`buffered` id delivered exactly once, in partition order.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { inject } from 'vitest'
import { http } from '../support/broker.js'
import type { TestProcess } from '../support/cli-harness.js'
import { startServe } from '../support/serve-process.js'
import { createTestDatabase, dropTestDatabase } from '../support/database.js'
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy.js'
import { drain, produce } from '../support/http-load.js'
import { cleanCheck, Ledger } from '../support/ledger.js'
import { sleep } from '../support/queen.js'

let proxy: FaultProxy
let database: string
const dirs: string[] = []

beforeAll(async () => {
  const connection = inject('pgConnection')
  proxy = await startFaultProxy({ host: connection.host, port: connection.port })
  database = await createTestDatabase('outage')
})
afterAll(async () => {
  await proxy.close()
  await dropTestDatabase(database)
  for (const dir of dirs) await rm(dir, { recursive: true, force: true })
})

async function spoolDir(): Promise<string> {
  const dir = await mkdtemp('/tmp/queenctl-outage-spool-')
  dirs.push(dir)
  return dir
}

function startBroker(spool: string, env: Record<string, string> = {}): Promise<{ process: TestProcess; url: string }> {
  return startServe({ pgPort: proxy.port, database, spool, env })
}

describe('PostgreSQL outage', () => {
  it('spools pushes while PostgreSQL is down and delivers every acknowledged push once, in partition order', async () => {
    const spool = await spoolDir()
    const broker = await startBroker(spool)
    const ledger = new Ledger()
    try {
      await Promise.all(['a', 'b', 'c'].map((partition) => produce(broker.url, ledger, 'outage-q', partition, 0, 20)))
      expect(ledger.pushes.every((entry) => entry.outcome === 'ok')).toBe(true)

      proxy.setMode('refuse')
      await Promise.all(['a', 'b', 'c'].map((partition) => produce(broker.url, ledger, 'outage-q', partition, 20, 30)))
      const during = ledger.pushes.slice(60)
      expect(during.filter((entry) => entry.outcome === 'buffered').length).toBeGreaterThan(0)
      expect(during.filter((entry) => entry.outcome === 'fail' || entry.outcome === 'unknown')).toEqual([])
      const health = await http(broker, 'GET', '/health')
      expect(health.status).toBe(503)
      expect(health.body).toMatchObject({ status: 'unhealthy', database: 'disconnected' })
      expect((await http(broker, 'GET', '/health/live')).status).toBe(200)
      const buffers = await http(broker, 'GET', '/api/v1/status/buffers')
      expect(buffers.body.pending).toBeGreaterThan(0)
      // Pops never see a 5xx during the outage.
      const popDuring = await http(broker, 'GET', '/api/v1/pop/queue/outage-q?consumerGroup=g')
      expect(popDuring.status).toBe(200)

      proxy.setMode('pass')
      // Pushes after the outage: partitions with spooled records keep going to the spool until replayed.
      await Promise.all(['a', 'b', 'c'].map((partition) => produce(broker.url, ledger, 'outage-q', partition, 50, 10)))
      await drain(broker.url, ledger, 'outage-q', 'g', 180)
      const report = ledger.check('g')
      expect(report).toMatchObject({ acknowledged: 180, lost: [], unexpected: [], duplicates: [], inversions: [] })
      // The spool is empty and its segments gone.
      const deadline = Date.now() + 10_000
      while (Date.now() < deadline && (await readdir(spool)).some((name) => name.endsWith('.seg'))) await sleep(100)
      expect((await readdir(spool)).filter((name) => name.endsWith('.seg') || name.endsWith('.open'))).toEqual([])
      const stored = await http(broker, 'GET', '/api/v1/resources/queues/outage-q')
      expect(stored.body.totals.total).toBe(180)
    } finally {
      proxy.setMode('pass')
      await broker.process.kill()
    }
  })

  it('replays a spool left by a broker killed with SIGKILL during the outage', async () => {
    const spool = await spoolDir()
    const first = await startBroker(spool)
    const ledger = new Ledger()
    try {
      proxy.setMode('refuse')
      await produce(first.url, ledger, 'killed-q', 'p', 0, 25)
      expect(ledger.pushes.every((entry) => entry.outcome === 'buffered')).toBe(true)
    } finally {
      await first.process.kill()
    }
    proxy.setMode('pass')
    const second = await startBroker(spool)
    try {
      await drain(second.url, ledger, 'killed-q', 'g', 25)
      expect(ledger.check('g')).toMatchObject({
        acknowledged: 25,
        lost: [],
        unexpected: [],
        duplicates: [],
        inversions: [],
      })
    } finally {
      await second.process.kill()
    }
  })

  it('starts while PostgreSQL is down, spools, and applies the schema and replays when it returns', async () => {
    const spool = await spoolDir()
    proxy.setMode('refuse')
    const broker = await startBroker(spool)
    const ledger = new Ledger()
    try {
      expect(broker.process.output()).toMatch(/schema deferred/)
      await produce(broker.url, ledger, 'late-start-q', 'p', 0, 10)
      expect(ledger.pushes.every((entry) => entry.outcome === 'buffered')).toBe(true)
      proxy.setMode('pass')
      await broker.process.waitFor(/schema (applied|up to date)/, 15_000)
      await drain(broker.url, ledger, 'late-start-q', 'g', 10)
      expect(ledger.check('g')).toMatchObject({ acknowledged: 10, lost: [], duplicates: [], inversions: [] })
    } finally {
      proxy.setMode('pass')
      await broker.process.kill()
    }
  })

  it('spools a push stuck on a silent network within seconds, not after the 31 s statement deadline', async () => {
    // Packets dropped without a reset: the statement already sent gets no answer. Before the stall watchdog
    // (src/broker/engine/stall-watchdog.ts) the push waited for pg's query_timeout, DB_STATEMENT_TIMEOUT + 1 s.
    const spool = await spoolDir()
    const broker = await startBroker(spool, { DB_STATEMENT_TIMEOUT: '30000' })
    const ledger = new Ledger()
    try {
      await produce(broker.url, ledger, 'silent-q', 'p', 0, 5)
      expect(ledger.pushes.map((entry) => entry.outcome)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok'])

      // Open several pooled connections, so the next push takes one that is already connected (a new
      // connection would fail at once, on DB_CONNECTION_TIMEOUT, and never stall).
      const warm = new Ledger()
      await Promise.all(Array.from({ length: 12 }, (_, i) => produce(broker.url, warm, 'silent-warm', `w${i}`, 0, 1)))
      expect(warm.pushes.every((entry) => entry.outcome === 'ok')).toBe(true)

      proxy.setMode('blackhole')
      const started = Date.now()
      await produce(broker.url, ledger, 'silent-q', 'p', 5, 5)
      const elapsedMs = Date.now() - started
      expect(ledger.pushes.slice(5).map((entry) => entry.outcome)).toEqual([
        'buffered',
        'buffered',
        'buffered',
        'buffered',
        'buffered',
      ])
      // Stall threshold 3 s, a probe of up to 2 x 2 s, a 1 s tick: well under the 31 s deadline.
      expect(elapsedMs).toBeLessThan(15_000)
      expect(broker.process.output()).toMatch(/closing connections stalled on an unreachable database/)

      proxy.setMode('pass')
      await drain(broker.url, ledger, 'silent-q', 'g', 10, 60_000)
      expect(ledger.check('g')).toMatchObject(cleanCheck(10))
    } finally {
      proxy.setMode('pass')
      await broker.process.kill()
    }
  })
})
