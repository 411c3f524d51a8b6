/**
 * The readiness probe (db/health-probe.ts) against a real server: a server that answers but refuses writes
 * (a standby, a demoted primary) is not ready, and the probe connects again on its next check, so it sees
 * the writable primary as soon as the address leads there (issue 38); checks asked at once share one round trip,
 * so a slow database does not turn a crowd of /health requests into 503s.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startFaultProxy } from '../../support/fault-proxy.js'
import { HealthProbe } from '../../../src/platform/postgres/health-probe.js'
import {
  createTestDatabase,
  databaseConnection,
  dropTestDatabase,
  setDatabaseReadOnly,
} from '../../support/database.js'

let database: string
let probe: HealthProbe

beforeAll(async () => {
  database = await createTestDatabase('probe')
  probe = new HealthProbe(databaseConnection(database))
})
afterAll(async () => {
  await probe.close()
  await dropTestDatabase(database)
})

describe('HealthProbe', () => {
  it('reports a read-only server as not ready, and a writable one as ready again on the next check', async () => {
    expect(await probe.state()).toBe('writable')
    await setDatabaseReadOnly(database, true)
    expect(await probe.state()).toBe('read-only')
    expect(await probe.check()).toBe(false)
    // Only new sessions take writes again: the probe must not keep the read-only session it used.
    await setDatabaseReadOnly(database, false)
    expect(await probe.state()).toBe('writable')
    expect(await probe.check()).toBe(true)
  })

  it('reports a server it cannot reach as unreachable', async () => {
    const nowhere = new HealthProbe({ ...databaseConnection(database), port: 1, connectionTimeoutMillis: 500 })
    try {
      expect(await nowhere.state()).toBe('unreachable')
    } finally {
      await nowhere.close()
    }
  })

  it('answers checks asked at once from one round trip, so a slow database does not time the later ones out', async () => {
    // 200 ms each way: a round trip on the probe's one connection takes about 400 ms, so ten checks queued on
    // it one after the other would pass the probe's 2 s timeout.
    const connection = databaseConnection(database)
    const proxy = await startFaultProxy({ host: connection.host ?? '127.0.0.1', port: Number(connection.port) })
    const slow = new HealthProbe({ ...connection, host: '127.0.0.1', port: proxy.port })
    try {
      expect(await slow.state()).toBe('writable')
      proxy.setDelayMs(200)
      const states = await Promise.all(Array.from({ length: 10 }, () => slow.state()))
      expect(states).toEqual(Array.from({ length: 10 }, () => 'writable'))
      // A check asked after those ended makes a round trip of its own: no stale answer is kept.
      proxy.setDelayMs(0)
      await setDatabaseReadOnly(database, true)
      expect(await slow.state()).toBe('read-only')
    } finally {
      await setDatabaseReadOnly(database, false)
      await slow.close()
      await proxy.close()
    }
  })
})
