/**
 * Schema apply (docs/design.md, "Schema at boot"): the numbered `.sql` files of a server's schema folder
 * applied in order under a PostgreSQL advisory lock, each recorded in a ledger table with its checksum.
 * A server describes its schema once (a {@link SchemaSource}); its boot and the CLI's `schema apply`,
 * `schema status` and `schema print` all run this one implementation over it.
 */
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type pg from 'pg'

/** A server's schema: where its files are, the lock that serialises applies, the ledger that records them. */
export interface SchemaSource {
  /** The folder of `NNN_name.sql` files (a file URL ending in `/`). */
  readonly dir: URL
  /** The advisory lock key serialising applies across processes (documented, so a DBA can find it in pg_locks). */
  readonly lockKey: number
  /** The PostgreSQL schema that holds the ledger (and the server's objects). */
  readonly schema: string
  /** Objects the server cannot work without (`to_regclass('...')`, `to_regproc('...')`): checked after an apply. */
  readonly expectedObjects: readonly string[]
}

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
  /** Expected objects still missing after the apply (empty when the schema is whole; not checked on a dry run). */
  missing: string[]
}

/** Progress callbacks for `queenctl schema apply` (listr2 steps). */
export interface SchemaApplyHooks {
  onLockWait?: (holder: string | undefined) => void
  onLocked?: (lockWaitMs: number) => void
  /** The ledger was read: how many files it records. */
  onLedger?: (recorded: number) => void
  /** Before a file: what applying it will do (`unchanged` files are skipped). */
  onPlanned?: (file: SchemaFile, status: SchemaFileStatus) => void
  onFile?: (name: string, status: SchemaFileStatus, ms: number) => void
}

function ledgerDdl(source: SchemaSource): string {
  return `
CREATE SCHEMA IF NOT EXISTS ${source.schema};
CREATE TABLE IF NOT EXISTS ${ledgerTable(source)} (
  file_name text PRIMARY KEY,
  file_number integer NOT NULL,
  checksum text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
);`
}

function ledgerTable(source: SchemaSource): string {
  return `${source.schema}.schema_ledger`
}

/** The schema files shipped with this build, in apply order. */
export function loadSchemaFiles(source: SchemaSource): SchemaFile[] {
  const dir = fileURLToPath(source.dir)
  return readdirSync(dir)
    .filter((name) => /^\d{3}_[a-z0-9_]+\.sql$/.test(name))
    .sort()
    .map((name) => {
      const sql = readFileSync(`${dir}${name}`, 'utf8')
      return {
        name,
        number: Number.parseInt(name.slice(0, 3), 10),
        sql,
        checksum: createHash('sha256').update(sql).digest('hex'),
      }
    })
}

/** The schema version these files install (the highest file number). */
export function requiredSchemaVersion(files: SchemaFile[]): number {
  return files.reduce((max, file) => Math.max(max, file.number), 0)
}

/** The whole schema as one SQL script, for DBAs (`queenctl schema print`). */
export function renderSchemaScript(source: SchemaSource, files: SchemaFile[] = loadSchemaFiles(source)): string {
  const parts = [`-- queenctl schema, version ${requiredSchemaVersion(files)}`, ledgerDdl(source).trim()]
  for (const file of files) {
    parts.push(`-- >>> ${file.name}`, file.sql.trim())
    parts.push(
      `INSERT INTO ${ledgerTable(source)} (file_name, file_number, checksum) VALUES ('${file.name}', ${file.number}, '${file.checksum}')\n` +
        `ON CONFLICT (file_name) DO UPDATE SET checksum = EXCLUDED.checksum, applied_at = now();`,
    )
  }
  return parts.join('\n\n') + '\n'
}

/** Creates the ledger table when missing (the one statement that must precede the lock-free read). */
export async function ensureSchemaLedger(client: pg.ClientBase, source: SchemaSource): Promise<void> {
  await client.query(ledgerDdl(source))
}

/** Recorded checksum per applied file name (empty when nothing is installed). */
export async function readSchemaLedger(client: pg.ClientBase, source: SchemaSource): Promise<Map<string, string>> {
  if (!(await ledgerExists(client, source))) return new Map()
  const rows = await client.query<{ file_name: string; checksum: string }>(
    `SELECT file_name, checksum FROM ${ledgerTable(source)}`,
  )
  return new Map(rows.rows.map((row) => [row.file_name, row.checksum]))
}

/** What applying `file` would do given the ledger. */
export function plannedStatus(file: SchemaFile, ledger: Map<string, string>): SchemaFileStatus {
  const recorded = ledger.get(file.name)
  return recorded === undefined ? 'new' : recorded === file.checksum ? 'unchanged' : 'changed'
}

/** The installed schema version (highest recorded file number), or 0 when none is installed. */
export async function installedSchemaVersion(client: pg.ClientBase, source: SchemaSource): Promise<number> {
  if (!(await ledgerExists(client, source))) return 0
  const result = await client.query<{ version: number | null }>(
    `SELECT max(file_number) AS version FROM ${ledgerTable(source)}`,
  )
  return result.rows[0]?.version ?? 0
}

async function ledgerExists(client: pg.ClientBase, source: SchemaSource): Promise<boolean> {
  const exists = await client.query<{ present: boolean }>('SELECT to_regclass($1) IS NOT NULL AS present', [
    ledgerTable(source),
  ])
  return exists.rows[0]?.present === true
}

async function lockHolder(client: pg.ClientBase, source: SchemaSource): Promise<string | undefined> {
  const result = await client.query<{ holder: string }>(
    `SELECT coalesce(a.application_name, '') || ' pid=' || a.pid || ' client=' || coalesce(a.client_addr::text, 'local') AS holder
     FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
     WHERE l.locktype = 'advisory' AND l.granted AND l.objid = $1 LIMIT 1`,
    [source.lockKey],
  )
  return result.rows[0]?.holder
}

/**
 * Takes the schema advisory lock, waiting up to `lockTimeoutMs`; `onWait` hears who holds it when it is
 * not free at once. Resolves with the time waited.
 */
export async function acquireSchemaLock(
  client: pg.ClientBase,
  source: SchemaSource,
  options: { lockTimeoutMs?: number; onWait?: (holder: string | undefined) => void } = {},
): Promise<number> {
  const started = Date.now()
  const immediate = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [
    source.lockKey,
  ])
  if (immediate.rows[0]?.locked) return 0
  options.onWait?.(await lockHolder(client, source))
  await client.query(`SET lock_timeout = ${Math.max(0, Math.trunc(options.lockTimeoutMs ?? 60_000))}`)
  try {
    await client.query('SELECT pg_advisory_lock($1)', [source.lockKey])
  } finally {
    await client.query('SET lock_timeout = 0')
  }
  return Date.now() - started
}

/** Releases the schema advisory lock. */
export async function releaseSchemaLock(client: pg.ClientBase, source: SchemaSource): Promise<void> {
  await client.query('SELECT pg_advisory_unlock($1)', [source.lockKey])
}

/** Applies one file in its own transaction (skipped when the ledger has its checksum). */
export async function applySchemaFile(
  client: pg.ClientBase,
  source: SchemaSource,
  file: SchemaFile,
  ledger: Map<string, string>,
): Promise<SchemaFileStatus> {
  if (ledger.get(file.name) === file.checksum) return 'unchanged'
  await client.query('BEGIN')
  try {
    await client.query(file.sql)
    await client.query(
      `INSERT INTO ${ledgerTable(source)} (file_name, file_number, checksum) VALUES ($1, $2, $3)
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

/** Names of expected schema objects that do not exist. */
export async function verifySchema(client: pg.ClientBase, source: SchemaSource): Promise<string[]> {
  const expected = source.expectedObjects
  const result = await client.query<Record<string, unknown>>(
    `SELECT ${expected.map((expression, index) => `${expression} IS NOT NULL AS o${index}`).join(', ')}`,
  )
  const row = result.rows[0] ?? {}
  return expected
    .filter((_, index) => row[`o${index}`] !== true)
    .map((expression) => expression.replace(/^to_reg\w+\('(.*)'\)$/, '$1'))
}

/**
 * Applies the schema files in order on `client` (a dedicated connection) under the advisory lock. Files
 * whose checksum matches the ledger are skipped; every file is idempotent, so applying twice changes
 * nothing. With `dryRun`, only reports what would happen.
 */
export async function applySchema(
  client: pg.ClientBase,
  source: SchemaSource,
  options: { dryRun?: boolean; lockTimeoutMs?: number; hooks?: SchemaApplyHooks } = {},
): Promise<SchemaApplyResult> {
  const started = Date.now()
  const files = loadSchemaFiles(source)
  const version = requiredSchemaVersion(files)
  const hooks = options.hooks ?? {}

  if (options.dryRun) {
    const ledger = await readSchemaLedger(client, source)
    hooks.onLedger?.(ledger.size)
    const planned = files.map((file) => {
      const status = plannedStatus(file, ledger)
      hooks.onPlanned?.(file, status)
      hooks.onFile?.(file.name, status, 0)
      return { name: file.name, status, ms: 0 }
    })
    return { version, files: planned, lockWaitMs: 0, durationMs: Date.now() - started, missing: [] }
  }

  const lockWaitMs = await acquireSchemaLock(client, source, {
    lockTimeoutMs: options.lockTimeoutMs,
    onWait: hooks.onLockWait,
  })
  hooks.onLocked?.(lockWaitMs)
  try {
    await ensureSchemaLedger(client, source)
    const ledger = await readSchemaLedger(client, source)
    hooks.onLedger?.(ledger.size)
    const results: SchemaApplyResult['files'] = []
    for (const file of files) {
      hooks.onPlanned?.(file, plannedStatus(file, ledger))
      const fileStart = Date.now()
      const status = await applySchemaFile(client, source, file, ledger)
      const ms = Date.now() - fileStart
      results.push({ name: file.name, status, ms })
      hooks.onFile?.(file.name, status, ms)
    }
    const missing = await verifySchema(client, source)
    return { version, files: results, lockWaitMs, durationMs: Date.now() - started, missing }
  } finally {
    await releaseSchemaLock(client, source).catch(() => undefined)
  }
}
