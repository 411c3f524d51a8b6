/**
 * The PostgreSQL every system of the run shares (docs/performance.md, "Principles of the bench": same PG, same
 * settings): a private embedded cluster in /tmp with the durable settings of docs/performance.md, "The bench machine",
 * or the server named by PG_HOST.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { totalmem } from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { startEmbeddedPostgres } from '../src/platform/postgres/embedded-postgres.js'

/** Connection details every adapter uses. */
export interface PgConnection {
  host: string
  port: number
  user: string
  password: string
  database: string
}

/** The benchmark's PostgreSQL. */
export interface BenchPostgres {
  connection: PgConnection
  /** `server_version`, e.g. `17.10`. */
  version: string
  /** `embedded (/tmp/...)` or `PG_HOST=...`. */
  origin: string
  /** The postmaster's pid when the server runs on this machine and we could find it (for CPU). */
  postmasterPid?: number
  /** The settings the report prints, as the server reports them. */
  settings: Record<string, string>
  /**
   * Lets the server settle before a measurement (docs/performance.md, "Principles of the bench"): waits (up to a
   * minute) for running autovacuum workers, vacuums and analyzes what the last scenario left, and flushes dirty pages,
   * so none of that lands inside the next window. Resolves with the ms it took.
   */
  settle(): Promise<number>
  stop(): Promise<void>
}

const BENCH_DATABASE = 'queen_bench'

const REPORTED_SETTINGS = [
  'shared_buffers',
  'synchronous_commit',
  'fsync',
  'full_page_writes',
  'wal_sync_method',
  'max_connections',
  'max_wal_size',
  'checkpoint_timeout',
  'effective_cache_size',
  'work_mem',
]

/**
 * docs/performance.md, "The bench machine"'s settings: durable (fsync, synchronous_commit, full_page_writes on) and
 * sized for this box.
 */
function durableSettings(): Record<string, string> {
  // 2 GB as measured in docs/performance.md on 24 GiB; never more than an eighth of the machine.
  const sharedBuffersMb = Math.min(2048, Math.floor(totalmem() / 8 / 1024 / 1024))
  return {
    shared_buffers: `${sharedBuffersMb}MB`,
    max_connections: '200',
    wal_buffers: '16MB',
    max_wal_size: '8GB',
    min_wal_size: '1GB',
    checkpoint_timeout: '15min',
    checkpoint_completion_target: '0.9',
    synchronous_commit: 'on',
    fsync: 'on',
    full_page_writes: 'on',
    random_page_cost: '1.1',
    effective_cache_size: `${Math.min(12288, Math.floor(totalmem() / 2 / 1024 / 1024))}MB`,
    work_mem: '16MB',
    maintenance_work_mem: '512MB',
    autovacuum_naptime: '10s',
    autovacuum_vacuum_scale_factor: '0.05',
    autovacuum_analyze_scale_factor: '0.02',
    track_io_timing: 'on',
  }
}

async function readSettings(connection: PgConnection): Promise<{ version: string; settings: Record<string, string> }> {
  const client = new pg.Client(connection)
  await client.connect()
  try {
    const result = await client.query<{ name: string; setting: string }>(
      `SELECT name, current_setting(name) AS setting FROM pg_settings WHERE name = ANY($1::text[])`,
      [REPORTED_SETTINGS],
    )
    const version = await client.query<{ v: string }>(`SELECT current_setting('server_version') AS v`)
    return {
      version: version.rows[0]?.v ?? 'unknown',
      settings: Object.fromEntries(result.rows.map((row) => [row.name, row.setting])),
    }
  } finally {
    await client.end()
  }
}

/** Longest wait for autovacuum before a measurement starts anyway. */
const AUTOVACUUM_WAIT_MS = 60_000

/** Tables with at least this many rows inserted, changed or dead since their last vacuum or analyze. */
const VACUUM_THRESHOLD_ROWS = 1000

/**
 * Does now the vacuum and analyze that autovacuum would start a few seconds into the next window, then
 * checkpoints (docs/performance.md, "Principles of the bench": fresh state and a checkpoint before each run). Observed
 * without it: an autovacuum of pg-boss's fan-out tables running inside ours' e2e window right after. Every table of
 * every system gets the same treatment; it takes 1-2 s between runs.
 */
async function settle(connection: PgConnection): Promise<number> {
  const client = new pg.Client(connection)
  await client.connect()
  const started = Date.now()
  try {
    for (;;) {
      const result = await client.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'autovacuum worker'`,
      )
      if ((result.rows[0]?.n ?? 0) === 0 || Date.now() - started >= AUTOVACUUM_WAIT_MS) break
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
    const stale = await client.query<{ name: string }>(
      `SELECT format('%I.%I', schemaname, relname) AS name FROM pg_stat_user_tables
       WHERE n_dead_tup + n_ins_since_vacuum + n_mod_since_analyze >= $1`,
      [VACUUM_THRESHOLD_ROWS],
    )
    for (const { name } of stale.rows) {
      // A table we may not vacuum (an external server, another owner) is left to autovacuum.
      await client.query(`VACUUM (ANALYZE) ${name}`).catch(() => undefined)
    }
    try {
      await client.query('CHECKPOINT')
    } catch {
      // CHECKPOINT needs superuser or pg_checkpoint on an external server; the run goes on without it.
    }
    return Date.now() - started
  } finally {
    await client.end()
  }
}

async function readPostmasterPid(dataDirectory: string): Promise<number | undefined> {
  const text = await readFile(path.join(dataDirectory, 'postmaster.pid'), 'utf8').catch(() => '')
  const pid = Number.parseInt(text.split('\n')[0] ?? '', 10)
  return Number.isInteger(pid) && pid > 0 ? pid : undefined
}

/** An external server on this machine: find its postmaster through its data directory, when we may read it. */
async function localPostmasterPid(connection: PgConnection): Promise<number | undefined> {
  if (!['127.0.0.1', 'localhost', '::1'].includes(connection.host) && !connection.host.startsWith('/')) return undefined
  const client = new pg.Client(connection)
  try {
    await client.connect()
    const result = await client.query<{ dir: string }>(`SELECT current_setting('data_directory') AS dir`)
    const dir = result.rows[0]?.dir
    return dir ? await readPostmasterPid(dir) : undefined
  } catch {
    return undefined
  } finally {
    await client.end().catch(() => undefined)
  }
}

/** Starts the embedded cluster (or connects to PG_HOST) and creates the benchmark database. */
export async function startBenchPostgres(log: (line: string) => void): Promise<BenchPostgres> {
  const env = process.env
  if (env.PG_HOST) {
    const connection: PgConnection = {
      host: env.PG_HOST,
      port: Number(env.PG_PORT ?? 5432),
      user: env.PG_USER ?? 'postgres',
      password: env.PG_PASSWORD ?? 'postgres',
      database: env.PG_DATABASE ?? env.PG_DB ?? 'postgres',
    }
    const { version, settings } = await readSettings(connection)
    return {
      connection,
      version,
      origin: `PG_HOST=${connection.host}:${connection.port}/${connection.database}`,
      postmasterPid: await localPostmasterPid(connection),
      settings,
      settle: () => settle(connection),
      stop: () => Promise.resolve(),
    }
  }

  // /tmp rather than the OS temp dir under /root: as root the server runs as the postgres user.
  const dataDir = await mkdtemp('/tmp/queenctl-bench-pg-')
  log(`starting embedded PostgreSQL in ${dataDir}`)
  const server = await startEmbeddedPostgres({ dataDir, port: 0, lock: false, settings: durableSettings() })
  try {
    const admin = new pg.Client(server.connection)
    await admin.connect()
    await admin.query(`CREATE DATABASE ${BENCH_DATABASE}`)
    await admin.end()
    const connection: PgConnection = { ...server.connection, database: BENCH_DATABASE }
    const { version, settings } = await readSettings(connection)
    return {
      connection,
      version,
      origin: `embedded (${dataDir}, runs as ${server.runAs})`,
      postmasterPid: await readPostmasterPid(server.clusterDir),
      settings,
      settle: () => settle(connection),
      stop: async () => {
        await server.stop()
        await rm(dataDir, { recursive: true, force: true })
      },
    }
  } catch (error) {
    await server.stop()
    await rm(dataDir, { recursive: true, force: true })
    throw error
  }
}
