/**
 * Failure classes of real PostgreSQL errors (db/pg-errors.ts): what spools a push and what may set a
 * spooled record aside. A server that refuses writes (a standby, a demoted primary) is an outage, never
 * the request's fault (issue 38).
 */
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { classifyPgError, describeDbFailure, isDataFault } from '../../../src/platform/postgres/pg-errors.js'
import { databaseConnection, useTestDatabase } from '../../support/database.js'

const { client } = useTestDatabase('pgerrors')

async function errorOf(sql: string, session: pg.ClientBase = client()): Promise<unknown> {
  try {
    await session.query(sql)
  } catch (error) {
    return error
  } finally {
    await session.query('ROLLBACK').catch(() => undefined)
  }
  throw new Error(`no error from ${sql}`)
}

describe('classifyPgError on errors of a real server', () => {
  it('takes a write refused by a read-only server (25006) for an outage, not the data', async () => {
    await client().query('BEGIN READ ONLY')
    const error = await errorOf('CREATE TEMP TABLE refused (n int)')
    expect((error as { code: string }).code).toBe('25006')
    expect(classifyPgError(error)).toBe('unavailable')
    expect(isDataFault(error)).toBe(false)
    expect(describeDbFailure(error)).toBe('database unavailable (server is read-only)')
  })

  it('takes a session refused for lack of connection slots (class 53) for an outage', async () => {
    const row = await client().query<{ name: string }>('SELECT current_database() AS name')
    await client().query(`CREATE ROLE queen_one_slot LOGIN PASSWORD 'x' CONNECTION LIMIT 0`)
    try {
      const session = new pg.Client({ ...databaseConnection(row.rows[0]!.name), user: 'queen_one_slot', password: 'x' })
      const error = await session.connect().then(
        () => new Error('connected'),
        (failure: unknown) => failure,
      )
      await session.end().catch(() => undefined)
      expect((error as { code: string }).code).toBe('53300')
      expect(classifyPgError(error)).toBe('unavailable')
    } finally {
      await client().query('DROP ROLE queen_one_slot')
    }
  })

  it('keeps data errors, conflicts and unique violations in their classes', async () => {
    const bad = await errorOf(`SELECT '{"a":"\\u0000"}'::jsonb`)
    expect(classifyPgError(bad)).toBe('data')
    expect(isDataFault(bad)).toBe(true)
    await client().query('CREATE TEMP TABLE once (n int PRIMARY KEY)')
    await client().query('INSERT INTO once VALUES (1)')
    const duplicate = await errorOf('INSERT INTO once VALUES (1)')
    expect(classifyPgError(duplicate)).toBe('unique-violation')
    const missing = await errorOf('SELECT queen.no_such_function()')
    expect(classifyPgError(missing)).toBe('other')
    // A function missing during an upgrade is the server's state, not the record's: replay waits for it.
    expect(isDataFault(missing)).toBe(false)
  })
})
