/** The broker's PostgreSQL sessions carry the settings the broker relies on, on a real server. */
import { afterAll, describe, expect, it } from 'vitest'
import { classifyPgError } from '../../../src/platform/postgres/pg-errors.js'
import { createPool, inTransaction } from '../../../src/platform/postgres/pool.js'
import { serverConnection } from '../../support/database.js'
import { startFaultProxy } from '../../support/fault-proxy.js'

describe('the broker pool', () => {
  const server = serverConnection()
  const pool = createPool({
    host: String(server.host),
    port: Number(server.port),
    user: String(server.user),
    password: String(server.password ?? ''),
    database: 'postgres',
    poolSize: 2,
    idleTimeoutMs: 10_000,
    connectionTimeoutMs: 10_000,
    statementTimeoutMs: 12_345,
    lockTimeoutMs: 2_345,
    keepalivesIdleSeconds: 60,
    applicationName: 'queen-pool-test',
  })
  afterAll(() => pool.end())

  it('runs its sessions without JIT, with its timeouts and its name', async () => {
    const { rows } = await pool.query<Record<string, string>>(
      `SELECT current_setting('jit') AS jit, current_setting('statement_timeout') AS statement_timeout,
              current_setting('lock_timeout') AS lock_timeout, current_setting('application_name') AS name`,
    )
    expect(rows[0]).toEqual({
      jit: 'off',
      statement_timeout: '12345ms',
      lock_timeout: '2345ms',
      name: 'queen-pool-test',
    })
  })
})

describe('a pooled connection that dies while checked out', () => {
  it('fails the transaction as an outage instead of crashing the process (issue 38: every broker died at a failover)', async () => {
    const server = serverConnection()
    const proxy = await startFaultProxy({ host: String(server.host), port: Number(server.port) })
    const pool = createPool({
      host: '127.0.0.1',
      port: proxy.port,
      user: String(server.user),
      password: String(server.password ?? ''),
      database: 'postgres',
      poolSize: 2,
      idleTimeoutMs: 10_000,
      connectionTimeoutMs: 2_000,
      statementTimeoutMs: 5_000,
      lockTimeoutMs: 2_000,
      keepalivesIdleSeconds: 60,
      applicationName: 'queen-pool-cut-test',
    })
    pool.on('error', () => undefined)
    try {
      // The server goes away between two statements of a transaction (idle in transaction, no query in
      // flight): pg then emits 'error' on the client, which pg-pool hears only while the client is idle.
      const outcome = await inTransaction(pool, async (client) => {
        await client.query('SELECT 1')
        proxy.setMode('refuse')
        await new Promise((resolve) => setTimeout(resolve, 300))
        await client.query('SELECT 2')
      }).then(
        () => 'committed',
        (error: unknown) => classifyPgError(error),
      )
      expect(outcome).toBe('unavailable')
      // The pool connects again once the server is back.
      proxy.setMode('pass')
      expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }])
    } finally {
      await pool.end()
      await proxy.close()
    }
  })
})
