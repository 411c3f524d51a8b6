/**
 * Schema apply (docs/design.md, "Storage decisions"): the `.sql` files of `src/broker/schema/` applied in order under a
 * PostgreSQL advisory lock, each recorded in `queen.schema_ledger` with its checksum. Used by `serve` at
 * every boot and by `queenctl schema apply` / `schema print`, so there is one implementation.
 */
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type pg from 'pg'

/**
 * The advisory lock key serialising schema applies across brokers and CLI runs: the bytes "QUEN" read as
 * a big-endian 32-bit integer (0x5155454e). Documented so a DBA can see who holds it in pg_locks.
 */
export const SCHEMA_LOCK_KEY = 0x5155454e

/** One schema file. */
export interface SchemaFile {
  /** File name, e.g. `002_push.sql`. */
  name: string
  /** Its number, e.g. 2. */
  number: number
  sql: string
  /** SHA-256 of the file text, hex. */
  checksum: string
}

/** What happened to one file. */
export type SchemaFileStatus = 'applied' | 'unchanged' | 'new' | 'changed'

/** Result of {@link applySchema}. */
export interface SchemaApplyResult {
  /** The schema version this build installs (the highest file number). */
  version: number
  files: { name: string; status: SchemaFileStatus; ms: number }[]
  lockWaitMs: number
  durationMs: number
}

/** Progress callbacks for `queenctl schema apply` (listr2 steps). */
export interface SchemaApplyHooks {
  onLockWait?: (holder: string | undefined) => void
  onLocked?: (lockWaitMs: number) => void
  onFile?: (name: string, status: SchemaFileStatus, ms: number) => void
}

const schemaDir = fileURLToPath(new URL('../schema/', import.meta.url))
const LEDGER_DDL = `
CREATE SCHEMA IF NOT EXISTS queen;
CREATE TABLE IF NOT EXISTS queen.schema_ledger (
  file_name text PRIMARY KEY,
  file_number integer NOT NULL,
  checksum text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
);`

/** The schema files shipped with this build, in apply order. */
export function loadSchemaFiles(): SchemaFile[] {
  return readdirSync(schemaDir)
    .filter((name) => /^\d{3}_[a-z0-9_]+\.sql$/.test(name))
    .sort()
    .map((name) => {
      const sql = readFileSync(`${schemaDir}${name}`, 'utf8')
      return {
        name,
        number: Number.parseInt(name.slice(0, 3), 10),
        sql,
        checksum: createHash('sha256').update(sql).digest('hex'),
      }
    })
}

/** The schema version this build needs. */
export function requiredSchemaVersion(files: SchemaFile[] = loadSchemaFiles()): number {
  return files.reduce((max, file) => Math.max(max, file.number), 0)
}

/** The whole schema as one SQL script, for DBAs (`queenctl schema print`). */
export function renderSchemaScript(files: SchemaFile[] = loadSchemaFiles()): string {
  const parts = [`-- queenctl schema, version ${requiredSchemaVersion(files)}`, LEDGER_DDL.trim()]
  for (const file of files) {
    parts.push(`-- >>> ${file.name}`, file.sql.trim())
    parts.push(
      `INSERT INTO queen.schema_ledger (file_name, file_number, checksum) VALUES ('${file.name}', ${file.number}, '${file.checksum}')\n` +
        `ON CONFLICT (file_name) DO UPDATE SET checksum = EXCLUDED.checksum, applied_at = now();`,
    )
  }
  return parts.join('\n\n') + '\n'
}

/** Creates the ledger table when missing (the one statement that must precede the lock-free read). */
export async function ensureSchemaLedger(client: pg.ClientBase): Promise<void> {
  await client.query(LEDGER_DDL)
}

/** Recorded checksum per applied file name (empty when nothing is installed). */
export async function readSchemaLedger(client: pg.ClientBase): Promise<Map<string, string>> {
  const exists = await client.query<{ present: boolean }>(
    "SELECT to_regclass('queen.schema_ledger') IS NOT NULL AS present",
  )
  if (!exists.rows[0]?.present) return new Map()
  const rows = await client.query<{ file_name: string; checksum: string }>(
    'SELECT file_name, checksum FROM queen.schema_ledger',
  )
  return new Map(rows.rows.map((row) => [row.file_name, row.checksum]))
}

/** What applying `file` would do given the ledger. */
export function plannedStatus(file: SchemaFile, ledger: Map<string, string>): SchemaFileStatus {
  const recorded = ledger.get(file.name)
  return recorded === undefined ? 'new' : recorded === file.checksum ? 'unchanged' : 'changed'
}

/** The installed schema version (highest recorded file number), or 0 when none is installed. */
export async function installedSchemaVersion(client: pg.ClientBase): Promise<number> {
  const exists = await client.query<{ present: boolean }>(
    "SELECT to_regclass('queen.schema_ledger') IS NOT NULL AS present",
  )
  if (!exists.rows[0]?.present) return 0
  const result = await client.query<{ version: number | null }>(
    'SELECT max(file_number) AS version FROM queen.schema_ledger',
  )
  return result.rows[0]?.version ?? 0
}

async function lockHolder(client: pg.ClientBase): Promise<string | undefined> {
  const result = await client.query<{ holder: string }>(
    `SELECT coalesce(a.application_name, '') || ' pid=' || a.pid || ' client=' || coalesce(a.client_addr::text, 'local') AS holder
     FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
     WHERE l.locktype = 'advisory' AND l.granted AND l.objid = $1 LIMIT 1`,
    [SCHEMA_LOCK_KEY],
  )
  return result.rows[0]?.holder
}

/**
 * Takes the schema advisory lock, waiting up to `lockTimeoutMs`; `onWait` hears who holds it when it is
 * not free at once. Resolves with the time waited.
 */
export async function acquireSchemaLock(
  client: pg.ClientBase,
  options: { lockTimeoutMs?: number; onWait?: (holder: string | undefined) => void } = {},
): Promise<number> {
  const started = Date.now()
  const immediate = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [
    SCHEMA_LOCK_KEY,
  ])
  if (immediate.rows[0]?.locked) return 0
  options.onWait?.(await lockHolder(client))
  await client.query(`SET lock_timeout = ${Math.max(0, Math.trunc(options.lockTimeoutMs ?? 60_000))}`)
  try {
    await client.query('SELECT pg_advisory_lock($1)', [SCHEMA_LOCK_KEY])
  } finally {
    await client.query('SET lock_timeout = 0')
  }
  return Date.now() - started
}

/** Releases the schema advisory lock. */
export async function releaseSchemaLock(client: pg.ClientBase): Promise<void> {
  await client.query('SELECT pg_advisory_unlock($1)', [SCHEMA_LOCK_KEY])
}

/** Applies one file in its own transaction (skipped when the ledger has its checksum). */
export async function applySchemaFile(
  client: pg.ClientBase,
  file: SchemaFile,
  ledger: Map<string, string>,
): Promise<SchemaFileStatus> {
  if (ledger.get(file.name) === file.checksum) return 'unchanged'
  await client.query('BEGIN')
  try {
    await client.query(file.sql)
    await client.query(
      `INSERT INTO queen.schema_ledger (file_name, file_number, checksum) VALUES ($1, $2, $3)
       ON CONFLICT (file_name) DO UPDATE SET checksum = EXCLUDED.checksum, applied_at = now()`,
      [file.name, file.number, file.checksum],
    )
    await client.query('COMMIT')
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined)
    throw new Error(`schema file ${file.name} failed: ${(error as Error).message}`, { cause: error })
  }
  ledger.set(file.name, file.checksum)
  return 'applied'
}

/** Objects the data plane cannot work without; `verifySchema` reports the missing ones. */
const EXPECTED_OBJECTS = [
  "to_regclass('queen.queues')",
  "to_regclass('queen.partitions')",
  "to_regclass('queen.messages')",
  "to_regclass('queen.consumers')",
  "to_regclass('queen.message_states')",
  "to_regclass('queen.dead_letters')",
  "to_regproc('queen.push_batch')",
  "to_regproc('queen.push_messages')",
  "to_regproc('queen.pop_messages')",
  "to_regproc('queen.ack_messages')",
]

/** Names of expected schema objects that do not exist. */
export async function verifySchema(client: pg.ClientBase): Promise<string[]> {
  const result = await client.query<Record<string, unknown>>(
    `SELECT ${EXPECTED_OBJECTS.map((expression, index) => `${expression} IS NOT NULL AS o${index}`).join(', ')}`,
  )
  const row = result.rows[0] ?? {}
  return EXPECTED_OBJECTS.filter((_, index) => row[`o${index}`] !== true).map((expression) =>
    expression.replace(/^to_reg\w+\('(.*)'\)$/, '$1'),
  )
}

/**
 * Applies the schema files in order on `client` (a dedicated connection) under the advisory lock. Files
 * whose checksum matches the ledger are skipped; every file is idempotent, so applying twice changes
 * nothing. With `dryRun`, only reports what would happen.
 */
export async function applySchema(
  client: pg.ClientBase,
  options: { dryRun?: boolean; lockTimeoutMs?: number; hooks?: SchemaApplyHooks } = {},
): Promise<SchemaApplyResult> {
  const started = Date.now()
  const files = loadSchemaFiles()
  const version = requiredSchemaVersion(files)
  const hooks = options.hooks ?? {}

  if (options.dryRun) {
    const ledger = await readSchemaLedger(client)
    const planned = files.map((file) => {
      const status = plannedStatus(file, ledger)
      hooks.onFile?.(file.name, status, 0)
      return { name: file.name, status, ms: 0 }
    })
    return { version, files: planned, lockWaitMs: 0, durationMs: Date.now() - started }
  }

  const lockWaitMs = await acquireSchemaLock(client, { lockTimeoutMs: options.lockTimeoutMs, onWait: hooks.onLockWait })
  hooks.onLocked?.(lockWaitMs)
  try {
    await ensureSchemaLedger(client)
    const ledger = await readSchemaLedger(client)
    const results: SchemaApplyResult['files'] = []
    for (const file of files) {
      const fileStart = Date.now()
      const status = await applySchemaFile(client, file, ledger)
      const ms = Date.now() - fileStart
      results.push({ name: file.name, status, ms })
      hooks.onFile?.(file.name, status, ms)
    }
    return { version, files: results, lockWaitMs, durationMs: Date.now() - started }
  } finally {
    await releaseSchemaLock(client).catch(() => undefined)
  }
}
