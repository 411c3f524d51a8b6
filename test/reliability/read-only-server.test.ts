/**
 * A server that answers but cannot write (issue 38): a demoted primary coming back as a standby, or the
 * address briefly leading to a hot standby during a failover. Here the broker's database is switched to
 * read-only the way a restart into recovery does it (sessions cut, every new one read-only, writes refused
 * with SQLSTATE 25006), under a ledger-checked load. The broker must spool, answer `buffered` and never
 * `failed`, turn readiness 503 while liveness stays 200, keep every spooled record (never quarantine it for
 * the server's fault), and store and deliver everything once the database takes writes again.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { inject } from 'vitest'
import { http } from '../support/broker.js'
import { createTestDatabase, dropTestDatabase, setDatabaseReadOnly } from '../support/database.js'
import { drain, produce } from '../support/http-load.js'
import { Ledger } from '../support/ledger.js'
import { until } from '../support/poll.js'
import { sleep } from '../support/queen.js'
import { startServe } from '../support/serve-process.js'

let database: string
let spool: string

beforeAll(async () => {
  database = await createTestDatabase('readonly')
  spool = await mkdtemp('/tmp/queenctl-readonly-spool-')
})
afterAll(async () => {
  await setDatabaseReadOnly(database, false)
  await dropTestDatabase(database)
  await rm(spool, { recursive: true, force: true })
})

describe('a PostgreSQL server that cannot write', () => {
  it('spools pushes, reports not ready, quarantines nothing, and delivers every accepted push once it writes again', async () => {
    const broker = await startServe({ pgPort: inject('pgConnection').port, database, spool })
    const ledger = new Ledger()
    const partitions = ['a', 'b', 'c']
    try {
      await Promise.all(partitions.map((partition) => produce(broker.url, ledger, 'ro-q', partition, 0, 10)))
      expect(ledger.pushes.every((entry) => entry.outcome === 'ok')).toBe(true)

      await setDatabaseReadOnly(database, true)
      await Promise.all(partitions.map((partition) => produce(broker.url, ledger, 'ro-q', partition, 10, 20)))
      const during = ledger.pushes.slice(30)
      expect(during.filter((entry) => entry.outcome === 'fail' || entry.outcome === 'unknown')).toEqual([])
      expect(during.every((entry) => entry.outcome === 'buffered')).toBe(true)

      const health = await http(broker, 'GET', '/health')
      expect(health.status).toBe(503)
      expect(health.body).toMatchObject({ status: 'unhealthy', database: 'read-only' })
      expect((await http(broker, 'GET', '/health/live')).status).toBe(200)
      // Longer than a record's five attempts alone (about 1.5 s): nothing may be set aside meanwhile.
      await sleep(3000)
      expect(await readdir(path.join(spool, 'failed'))).toEqual([])

      await setDatabaseReadOnly(database, false)
      const writableAt = Date.now()
      // Pushes resume: partitions with spooled records keep spooling until replayed, then are stored.
      let probes = 0
      await until('a push to be stored again', async () => {
        const fresh = new Ledger()
        await produce(broker.url, fresh, 'ro-probe', 'p', probes++, 1)
        return fresh.pushes[0]!.outcome === 'ok'
      })
      const resumedMs = Date.now() - writableAt
      await Promise.all(partitions.map((partition) => produce(broker.url, ledger, 'ro-q', partition, 30, 5)))
      await drain(broker.url, ledger, 'ro-q', 'g', 105)
      expect(ledger.check('g')).toMatchObject({
        acknowledged: 105,
        lost: [],
        unexpected: [],
        duplicates: [],
        inversions: [],
      })
      expect(await readdir(path.join(spool, 'failed'))).toEqual([])
      expect((await http(broker, 'GET', '/health')).status).toBe(200)
      // The probe notices a writable primary within its 1 s interval; the bound leaves room for a loaded machine.
      expect(resumedMs).toBeLessThan(10_000)
      expect(broker.process.output()).toMatch(/database unreachable/)
      expect(broker.process.output()).not.toMatch(/"level":(50|60)|\bERROR\b|\bFATAL\b/)
    } finally {
      await broker.process.kill()
    }
  })
})
