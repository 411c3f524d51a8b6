/**
 * `db check` (docs/cli.md, "Command reference", docs/operations.md, "PostgreSQL requirements" and "Pool sizing"):
 * whether a PostgreSQL can carry the broker. Reachability and version (14 or newer), a direct or session-mode
 * connection (no transaction-mode pooler), the privileges to apply or use the schema, synchronous_commit,
 * max_connections against replicas x (DB_POOL_SIZE + 3), and the schema version against this CLI. Reads only; changes
 * nothing.
 */
import { readFileSync } from 'node:fs'
import pg from 'pg'
import { MINIMUM_POSTGRES_MAJOR, serverVersionProblem } from '../platform/postgres/server-version.js'
import { EXIT, UserError } from './errors.js'
import { readSchemaStatus, schemaAdvice, type SchemaState } from './schema-status.js'

const FACTS_SQL = readFileSync(new URL('./sql/db-check-facts.sql', import.meta.url), 'utf8')
const SESSION_SQL = readFileSync(new URL('./sql/db-check-session.sql', import.meta.url), 'utf8')

/** One finding, as env check prints them. */
export interface DbFinding {
  level: 'ok' | 'warning' | 'error'
  check: string
  message: string
}

/** What the server told us. */
export interface DbFacts {
  version: string
  versionNum: number
  role: string
  database: string
  maxConnections: number
  reservedConnections: number
  connectionsInUse: number
  neededConnections: number
  synchronousCommit: string
  serverPort: number | null
  /** Null when the ledger could not be read (a finding says why). */
  schemaState: SchemaState | null
  schemaVersion: number | null
}

/** The result of a check. */
export interface DbCheckResult {
  valid: boolean
  target: string
  facts: DbFacts
  findings: DbFinding[]
}

interface FactsRow {
  version_num: number
  version: string
  max_connections: number
  superuser_reserved: number
  reserved: number
  connections_in_use: number
  synchronous_commit: string
  role: string
  database: string
  can_create_schema: boolean
  owns_queen_schema: boolean | null
  can_write_messages: boolean | null
  server_port: number | null
  backend_pid: number
}

/** host:port/database of a connection, for messages (never the password). */
export function describeTarget(connection: pg.ClientConfig): string {
  if (connection.connectionString) {
    const url = new URL(connection.connectionString)
    return `${url.hostname}:${url.port || '5432'}${url.pathname}`
  }
  return `${connection.host ?? 'localhost'}:${connection.port ?? 5432}/${connection.database ?? ''}`
}

/** The TCP port the connection was asked to use. */
function requestedPort(connection: pg.ClientConfig): number {
  if (connection.connectionString) return Number(new URL(connection.connectionString).port || 5432)
  return Number(connection.port ?? 5432)
}

/** Runs every check. Throws a UserError with exit 2 when PostgreSQL cannot be reached. */
export async function checkDatabase(
  connection: pg.ClientConfig,
  sizing: { replicas: number; poolSize: number },
): Promise<DbCheckResult> {
  const target = describeTarget(connection)
  const client = new pg.Client({
    connectionTimeoutMillis: 5000,
    ...connection,
    application_name: 'queenctl db check',
  })
  try {
    await client.connect()
  } catch (error) {
    throw new UserError(`cannot connect to PostgreSQL at ${target}: ${(error as Error).message}`, {
      exitCode: EXIT.server,
      hint: 'check --pg-url or the PG_* variables, and that the server accepts connections from here',
      cause: error,
    })
  }
  let row: FactsRow
  let session: { value: string | null; backend_pid: number }
  try {
    row = (await client.query<FactsRow>(FACTS_SQL)).rows[0]!
    await client.query("SELECT set_config('queen.db_check', 'session', false)")
    session = (await client.query<{ value: string | null; backend_pid: number }>(SESSION_SQL)).rows[0]!
  } catch (error) {
    throw new UserError(`PostgreSQL at ${target} refused a catalogue query: ${(error as Error).message}`, {
      exitCode: EXIT.server,
      cause: error,
    })
  } finally {
    await client.end().catch(() => undefined)
  }
  const schema = await readSchemaStatus(connection).catch((error: unknown) => error as Error)
  const findings: DbFinding[] = [
    { level: 'ok', check: 'connect', message: `connected to ${target} as ${row.role}` },
    versionFinding(row),
    ...poolerFindings(row, session, requestedPort(connection)),
    privilegeFinding(row),
    row.synchronous_commit === 'off'
      ? {
          level: 'warning',
          check: 'synchronous_commit',
          message:
            'synchronous_commit is off: a queued answer may not survive a PostgreSQL crash; keep it on in production',
        }
      : { level: 'ok', check: 'synchronous_commit', message: `synchronous_commit is ${row.synchronous_commit}` },
    connectionsFinding(row, sizing),
    schema instanceof Error
      ? { level: 'error', check: 'schema', message: `cannot read the schema ledger: ${schema.message}` }
      : schemaFinding(schema.state, schema.installedVersion, schema.requiredVersion, schemaAdvice(schema)),
  ]
  const reserved = row.superuser_reserved + row.reserved
  return {
    valid: findings.every((finding) => finding.level !== 'error'),
    target,
    facts: {
      version: row.version,
      versionNum: row.version_num,
      role: row.role,
      database: row.database,
      maxConnections: row.max_connections,
      reservedConnections: reserved,
      connectionsInUse: row.connections_in_use,
      neededConnections: sizing.replicas * (sizing.poolSize + 3),
      synchronousCommit: row.synchronous_commit,
      serverPort: row.server_port,
      schemaState: schema instanceof Error ? null : schema.state,
      schemaVersion: schema instanceof Error ? null : schema.installedVersion,
    },
    findings,
  }
}

function versionFinding(row: FactsRow): DbFinding {
  const tooOld = serverVersionProblem({ version: row.version, versionNum: row.version_num })
  return tooOld
    ? { level: 'error', check: 'version', message: tooOld }
    : {
        level: 'ok',
        check: 'version',
        message: `PostgreSQL ${row.version} (${MINIMUM_POSTGRES_MAJOR} or newer needed)`,
      }
}

/**
 * A transaction-mode pooler hands successive statements to different server sessions: a session setting
 * is lost, or the backend pid changes. A port that differs from the server's own means something sits in
 * between, which is fine only in session mode. Both are heuristics, and say so.
 */
function poolerFindings(
  row: FactsRow,
  session: { value: string | null; backend_pid: number },
  port: number,
): DbFinding[] {
  if (session.value !== 'session' || session.backend_pid !== row.backend_pid) {
    return [
      {
        level: 'error',
        check: 'pooler',
        message:
          'successive statements reached different server sessions: a transaction-mode pooler sits in front of PostgreSQL; the broker needs a direct or session-mode connection (advisory locks, LISTEN)',
      },
    ]
  }
  if (row.server_port !== null && row.server_port !== port) {
    return [
      {
        level: 'warning',
        check: 'pooler',
        message: `connected on port ${port} but PostgreSQL listens on ${row.server_port}: a proxy or pooler sits in between; it must run in session mode`,
      },
    ]
  }
  return [{ level: 'ok', check: 'pooler', message: 'direct connection: session state holds across statements' }]
}

function privilegeFinding(row: FactsRow): DbFinding {
  if (row.owns_queen_schema === null) {
    return row.can_create_schema
      ? { level: 'ok', check: 'privileges', message: `${row.role} may create schema queen (CREATE on ${row.database})` }
      : {
          level: 'warning',
          check: 'privileges',
          message: `${row.role} may not create schema queen: set QUEEN_APPLY_SCHEMA=0 and have a DBA run queenctl schema apply`,
        }
  }
  if (row.can_write_messages === false) {
    return {
      level: 'error',
      check: 'privileges',
      message: `${row.role} may not read and write queen.messages: grant SELECT, INSERT, UPDATE, DELETE on schema queen`,
    }
  }
  return row.owns_queen_schema
    ? { level: 'ok', check: 'privileges', message: `${row.role} owns schema queen (may apply the schema)` }
    : {
        level: 'warning',
        check: 'privileges',
        message: `${row.role} uses schema queen but does not own it: schema upgrades need QUEEN_APPLY_SCHEMA=0 and a DBA running queenctl schema apply`,
      }
}

function connectionsFinding(row: FactsRow, sizing: { replicas: number; poolSize: number }): DbFinding {
  const needed = sizing.replicas * (sizing.poolSize + 3)
  const reserved = row.superuser_reserved + row.reserved
  const available = row.max_connections - reserved
  const sum =
    `max_connections ${row.max_connections} - ${reserved} reserved = ${available} available, ` +
    `needed ${needed} = ${sizing.replicas} replicas x (DB_POOL_SIZE ${sizing.poolSize} + 3); ${row.connections_in_use} in use now`
  return needed <= available
    ? { level: 'ok', check: 'connections', message: sum }
    : { level: 'error', check: 'connections', message: `${sum}: raise max_connections or lower DB_POOL_SIZE` }
}

function schemaFinding(state: SchemaState, installed: number, required: number, advice: string): DbFinding {
  const message = `schema version ${installed}, this CLI ${required}: ${advice}`
  switch (state) {
    case 'current':
      return { level: 'ok', check: 'schema', message }
    case 'ahead':
      return { level: 'error', check: 'schema', message }
    // The broker applies missing files at boot unless QUEEN_APPLY_SCHEMA=0.
    case 'not installed':
    case 'pending':
      return { level: 'warning', check: 'schema', message }
  }
}

/** The error thrown after the findings were printed, when a requirement is not met. */
export function unmetRequirements(result: DbCheckResult): UserError {
  const count = result.findings.filter((finding) => finding.level === 'error').length
  return new UserError(`PostgreSQL at ${result.target} does not meet ${count} requirement(s) of the broker`, {
    exitCode: EXIT.user,
    code: 'requirements_not_met',
    hint: 'fix the errors above (docs/operations.md, "PostgreSQL requirements" lists the requirements)',
  })
}
