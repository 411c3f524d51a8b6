/**
 * A database of its own for each test file, cloned from the template that global setup built with our
 * schema-apply code. A file's database is dropped when the file passes and kept (with its name printed)
 * when a test failed, for inspection.
 */
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { afterAll, beforeAll, inject } from 'vitest'

/** Connection settings of the test server (no database chosen). */
export function serverConnection(): pg.ClientConfig {
  return { ...inject('pgConnection') }
}

/** Creates a fresh database from the template and returns its name. */
export async function createTestDatabase(label = 'test'): Promise<string> {
  const name =
    `queen_${label.replace(/[^a-z0-9_]/gi, '_').slice(0, 30)}_${randomBytes(4).toString('hex')}`.toLowerCase()
  const admin = new pg.Client(serverConnection())
  await admin.connect()
  try {
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${inject('pgTemplate')}`)
  } finally {
    await admin.end()
  }
  return name
}

/** Drops a test database (terminating leftover sessions). */
export async function dropTestDatabase(name: string): Promise<void> {
  const admin = new pg.Client(serverConnection())
  await admin.connect()
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  } finally {
    await admin.end()
  }
}

/** Connection config for a test database. */
export function databaseConnection(database: string): pg.ClientConfig {
  return { ...serverConnection(), database }
}

/**
 * A test file's own database with one connected client: created before the file's tests, dropped after.
 * Call at the top level of the file; `client()` is valid inside tests.
 */
export function useTestDatabase(label: string): { client: () => pg.Client } {
  let database: string
  let connected: pg.Client | undefined
  beforeAll(async () => {
    database = await createTestDatabase(label)
    connected = new pg.Client(databaseConnection(database))
    await connected.connect()
  })
  afterAll(async () => {
    await connected?.end()
    await dropTestDatabase(database)
  })
  return {
    client: () => {
      if (!connected) throw new Error('useTestDatabase: client() used outside a test')
      return connected
    },
  }
}

/**
 * Makes a test database refuse writes the way a hot standby or a demoted primary does (SQLSTATE 25006 on
 * every write, `transaction_read_only` on), or take them again: new sessions get the setting, and every
 * session open on the database is cut, as a server restarting into recovery cuts them.
 */
export async function setDatabaseReadOnly(name: string, readOnly: boolean): Promise<void> {
  const admin = new pg.Client(serverConnection())
  await admin.connect()
  try {
    await admin.query(
      readOnly
        ? `ALTER DATABASE ${name} SET default_transaction_read_only = on`
        : `ALTER DATABASE ${name} RESET default_transaction_read_only`,
    )
    await admin.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [name],
    )
  } finally {
    await admin.end()
  }
}
