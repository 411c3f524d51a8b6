/**
 * A dedicated pg.Client's connect timeout (`timeout expired`, as the schema apply at boot meets it) is an
 * outage, like the pool's (`timeout exceeded when trying to connect`). Before, it was "other": under load a
 * broker restarting with PostgreSQL slow to accept exited with `schema apply failed: timeout expired`
 * instead of deferring the schema (found by the fault harness's long run, issue 38).
 */
import pg from 'pg'
import { expect, it } from 'vitest'
import { classifyPgError } from '../../../src/platform/postgres/pg-errors.js'
import { serverConnection } from '../../support/database.js'
import { startFaultProxy } from '../../support/fault-proxy.js'

it('classifies a client connect timeout as unavailable', async () => {
  const server = serverConnection()
  const proxy = await startFaultProxy({ host: String(server.host), port: Number(server.port) })
  proxy.setMode('blackhole')
  const client = new pg.Client({ ...server, host: '127.0.0.1', port: proxy.port, connectionTimeoutMillis: 300 })
  try {
    const error = await client.connect().then(
      () => undefined,
      (failure: unknown) => failure,
    )
    expect((error as Error).message).toBe('timeout expired')
    expect(classifyPgError(error)).toBe('unavailable')
  } finally {
    await client.end().catch(() => undefined)
    await proxy.close()
  }
})
