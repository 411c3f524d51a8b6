/**
 * The PostgreSQL pool of a server, with its timeouts (docs/configuration.md, PostgreSQL), helpers to run a
 * server's registered statements, and one to run a function inside one transaction.
 */
import pg from 'pg'
import { classifyPgError, coerceError } from './pg-errors.js'

// Return int8 (counts, positions) as JavaScript numbers: they stay far below 2^53 here.
pg.types.setTypeParser(20, (value) => Number.parseInt(value, 10))

/** Where and how to connect. */
export interface PoolSettings {
  host: string
  port: number
  user: string
  password: string
  database: string
  ssl?: pg.ConnectionConfig['ssl']
  poolSize: number
  idleTimeoutMs: number
  connectionTimeoutMs: number
  statementTimeoutMs: number
  lockTimeoutMs: number
  keepalivesIdleSeconds: number
  applicationName: string
}

/** pg client settings shared by the pool and the dedicated connections (health probe, listener). */
export function clientConfig(settings: PoolSettings): pg.ClientConfig {
  return {
    host: settings.host,
    port: settings.port,
    user: settings.user,
    password: settings.password,
    database: settings.database,
    ssl: settings.ssl,
    application_name: settings.applicationName,
    connectionTimeoutMillis: settings.connectionTimeoutMs,
    statement_timeout: settings.statementTimeoutMs,
    lock_timeout: settings.lockTimeoutMs,
    // A silent network drop is caught by the client-side deadline one second after the server's own.
    query_timeout: settings.statementTimeoutMs + 1000,
    keepAlive: true,
    keepAliveInitialDelayMillis: settings.keepalivesIdleSeconds * 1000,
  }
}

/** Creates the request pool. */
export function createPool(settings: PoolSettings): pg.Pool {
  return new pg.Pool({
    ...clientConfig(settings),
    max: settings.poolSize,
    idleTimeoutMillis: settings.idleTimeoutMs,
    // No JIT in the broker's sessions: its statements are short and run many times a second, and a
    // PostgreSQL built with LLVM (Debian's and the PGDG packages) compiles every statement estimated above
    // jit_above_cost on every execution (0.9 s for one pop, issue 22). A SET rather than a startup option:
    // poolers refuse unknown startup options, and an `options` here would replace the operator's PGOPTIONS.
    // The pool hands the connection out once it is done (a failure ends the connection and fails the checkout
    // with it); sent from the 'connect' event instead, it raced the first query, which pg deprecates.
    // pg-pool awaits the promise onConnect returns; @types/pg declares it as returning void.
    // eslint-disable-next-line @typescript-eslint/no-misused-promises
    onConnect: async (client) => {
      await client.query('SET jit = off')
    },
  })
}

/** A statement of a server's SQL registry: its name (pg prepares it once per connection under it) and text. */
export interface Statement {
  readonly name: string
  readonly text: string
}

/** Runs a registered statement. */
export async function runStatement<Row extends pg.QueryResultRow>(
  db: pg.Pool | pg.ClientBase,
  statement: Statement,
  values: unknown[] = [],
): Promise<Row[]> {
  const result = await db.query<Row>({ name: statement.name, text: statement.text, values })
  return result.rows
}

const JSONB_OID = 3802
const JSON_OID = 114
const keepText = (value: string): string => value
const rawJsonTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === JSONB_OID || oid === JSON_OID
      ? keepText
      : (pg.types.getTypeParser(oid, format ?? 'text') as (
          value: string,
        ) => unknown)) as pg.CustomTypesConfig['getTypeParser'],
}

/** Like {@link runStatement}, but json/jsonb columns arrive as their JSON text (not parsed). */
export async function runStatementRawJson<Row extends pg.QueryResultRow>(
  db: pg.Pool | pg.ClientBase,
  statement: Statement,
  values: unknown[] = [],
): Promise<Row[]> {
  const result = await db.query<Row>({ name: statement.name, text: statement.text, values, types: rawJsonTypes })
  return result.rows
}

/**
 * Runs `work` inside BEGIN/COMMIT on one pooled connection; rolls back when it throws. With `discardIf`
 * returning true at the end, the connection is closed rather than returned to the pool (a cancel sent to it
 * may not have landed yet).
 */
export async function inTransaction<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
  options: { discardIf?: () => boolean } = {},
): Promise<T> {
  const client = await pool.connect()
  // A connection whose rollback failed may still be inside the transaction, and one to a server that cannot
  // write (a demoted primary after a failover) would fail every later use: both are closed, not returned to
  // the pool, so the next checkout connects again.
  let broken: Error | undefined
  try {
    await client.query('BEGIN')
    const result = await work(client)
    await client.query('COMMIT')
    return result
  } catch (error) {
    if (classifyPgError(error) === 'unavailable') broken = coerceError(error)
    await client.query('ROLLBACK').catch((failure: unknown) => {
      broken = coerceError(failure)
    })
    throw error
  } finally {
    client.release(broken ?? (options.discardIf?.() ? new Error('connection discarded') : undefined))
  }
}

/** Runs a registered statement that returns no rows; resolves with the number of rows it changed. */
export async function executeStatement(
  db: pg.Pool | pg.ClientBase,
  statement: Statement,
  values: unknown[] = [],
): Promise<number> {
  const result = await db.query({ name: statement.name, text: statement.text, values })
  return result.rowCount ?? 0
}
