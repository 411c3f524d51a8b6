/** The broker's PostgreSQL sessions carry the settings the broker relies on, on a real server. */
import { afterAll, describe, expect, it } from 'vitest'
import { createPool } from '../../../src/platform/postgres/pool.js'
import { serverConnection } from '../../support/database.js'

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
