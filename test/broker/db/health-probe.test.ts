/**
 * The readiness probe (db/health-probe.ts) against a real server: a server that answers but refuses writes
 * (a standby, a demoted primary) is not ready, and the probe connects again on its next check, so it sees
 * the writable primary as soon as the address leads there (issue 38).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
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
})
