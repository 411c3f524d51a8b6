/**
 * The database part: the PostgreSQL the broker runs on (embedded when PG_HOST is unset, or the one given
 * to a test broker), the schema applied under its advisory lock (deferred and retried while PostgreSQL is
 * unreachable), the request pool and the health probe. It decorates `app.database`; parts that must wait
 * for the schema register with `whenSchemaReady`. Closing ends the pool, the probe and the embedded server.
 */
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import pg from 'pg'
import type { Logger } from 'pino'
import type { BrokerConfig } from '../config/broker-config.js'
import { pgTlsOption } from '../config/pg-client-config.js'
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../platform/postgres/embedded-postgres.js'
import { HealthProbe } from '../../platform/postgres/health-probe.js'
import { classifyPgError } from '../../platform/postgres/pg-errors.js'
import { clientConfig, createPool, type PoolSettings } from '../../platform/postgres/pool.js'
import {
  applySchema,
  installedSchemaVersion,
  loadSchemaFiles,
  requiredSchemaVersion,
} from '../../platform/postgres/schema-apply.js'
import { readServerFacts, serverVersionProblem } from '../../platform/postgres/server-version.js'
import { BROKER_SCHEMA } from '../db/broker-schema.js'
import { BootError } from './boot-error.js'

/** The slice of the configuration this part reads. */
export type DatabaseConfig = Pick<BrokerConfig, 'pg' | 'serverId' | 'dataDir' | 'embeddedPgPort' | 'applySchema'>

/** Options of the database part. */
export interface DatabasePartOptions {
  config: DatabaseConfig
  log: Logger
  /** A database to use as it is, schema installed (test brokers); otherwise the configured server. */
  connection?: pg.ClientConfig
}

/** What the database part gives the others. */
export interface BrokerDatabase {
  pool: pg.Pool
  health: HealthProbe
  /** Connection settings for dedicated connections (the hint channel's LISTEN). */
  connection: pg.ClientConfig
  /** Whether the schema is in place (false while a deferred apply retries). */
  readonly schemaReady: boolean
  /** Runs `start` once the schema is in place: now (awaited by the boot) or when a retry succeeds. */
  whenSchemaReady(start: () => Promise<void> | void): Promise<void>
}

declare module 'fastify' {
  interface FastifyInstance {
    database: BrokerDatabase
  }
}

const SCHEMA_RETRY_MS = 1000

async function openServer(
  config: DatabaseConfig,
  log: Logger,
): Promise<{ settings: PoolSettings; embedded?: EmbeddedPostgres }> {
  const base = {
    poolSize: config.pg.poolSize,
    idleTimeoutMs: config.pg.idleTimeoutMs,
    connectionTimeoutMs: config.pg.connectionTimeoutMs,
    statementTimeoutMs: config.pg.statementTimeoutMs,
    lockTimeoutMs: config.pg.lockTimeoutMs,
    keepalivesIdleSeconds: config.pg.keepalivesIdleSeconds,
    applicationName: `queenctl:${config.serverId}`,
  }
  if (config.pg.host) {
    return {
      settings: {
        ...base,
        host: config.pg.host,
        port: config.pg.port,
        user: config.pg.user,
        password: config.pg.password,
        database: config.pg.database,
        ssl: pgTlsOption(config.pg),
      },
    }
  }
  const pgLog = log.child({ component: 'embedded-postgres' })
  const embedded = await startEmbeddedPostgres({
    dataDir: config.dataDir,
    port: config.embeddedPgPort,
    onLog: (line) => pgLog.debug(line),
    onUnexpectedExit: (code, signal) => pgLog.error({ code, signal }, 'embedded postgres exited'),
  })
  log.info(
    {
      mode: 'embedded',
      dir: config.dataDir,
      port: embedded.connection.port,
      version: embedded.version,
      run_as: embedded.runAs,
    },
    'database',
  )
  return { settings: { ...base, ...embedded.connection }, embedded }
}

async function describeServer(settings: PoolSettings, log: Logger): Promise<void> {
  const client = new pg.Client(clientConfig(settings))
  try {
    await client.connect()
    const facts = await readServerFacts(client)
    log.info(
      {
        mode: 'external',
        host: settings.host,
        port: settings.port,
        version: facts.version,
        max_connections: facts.maxConnections,
      },
      'database',
    )
    const tooOld = serverVersionProblem(facts)
    if (tooOld) throw new BootError(`${tooOld} (PG_HOST=${settings.host})`, 1)
  } finally {
    await client.end().catch(() => undefined)
  }
}

/** Applies (or checks) the schema once; throws on failure. */
async function prepareSchema(config: DatabaseConfig, settings: PoolSettings, log: Logger): Promise<void> {
  const client = new pg.Client({ ...clientConfig(settings), statement_timeout: 0, query_timeout: undefined })
  await client.connect()
  try {
    if (!config.applySchema) {
      const installed = await installedSchemaVersion(client, BROKER_SCHEMA)
      const required = requiredSchemaVersion(loadSchemaFiles(BROKER_SCHEMA))
      if (installed < required) {
        throw new BootError(
          `schema version ${installed} is installed but this build needs ${required}; run queenctl schema apply (QUEEN_APPLY_SCHEMA=0)`,
          1,
        )
      }
      log.info({ version: installed, reason: 'QUEEN_APPLY_SCHEMA=0' }, 'schema skipped')
      return
    }
    const result = await applySchema(client, BROKER_SCHEMA)
    if (result.missing.length > 0) {
      throw new BootError(`schema incomplete after apply: missing ${result.missing.join(', ')}`, 2)
    }
    const changed = result.files.filter((file) => file.status === 'applied').length
    log.info(
      {
        version: result.version,
        files: result.files.length,
        changed,
        lock_wait_ms: result.lockWaitMs,
        duration_ms: result.durationMs,
      },
      changed > 0 ? 'schema applied' : 'schema up to date',
    )
  } finally {
    await client.end().catch(() => undefined)
  }
}

/** An opened database: its pool, the settings of dedicated connections, and a schema apply still owed. */
interface OpenedDatabase {
  pool: pg.Pool
  connection: pg.ClientConfig
  embedded?: EmbeddedPostgres
  /** Set when the schema apply was deferred (PostgreSQL unreachable at boot): the retry to run. */
  deferredSchema?: () => Promise<void>
}

/** A test broker's database: given, schema installed. */
function givenDatabase(connection: pg.ClientConfig, config: DatabaseConfig): OpenedDatabase {
  return { pool: new pg.Pool({ ...connection, max: config.pg.poolSize }), connection }
}

/** The configured server (embedded or PG_HOST), its schema applied or deferred. */
async function configuredDatabase(config: DatabaseConfig, log: Logger): Promise<OpenedDatabase> {
  const { settings, embedded } = await openServer(config, log)
  let deferredSchema: (() => Promise<void>) | undefined
  try {
    if (!embedded) await describeServer(settings, log)
    await prepareSchema(config, settings, log)
  } catch (error) {
    if (error instanceof BootError || classifyPgError(error) !== 'unavailable') {
      await embedded?.stop()
      throw error instanceof BootError
        ? error
        : new BootError(`schema apply failed: ${(error as Error).message}`, 2, { cause: error })
    }
    log.warn({ err: error }, 'schema deferred')
    // A server unreachable at boot has not had its version checked either: check it first when it returns.
    deferredSchema = async () => {
      if (!embedded) await describeServer(settings, log)
      await prepareSchema(config, settings, log)
    }
  }
  return { pool: createPool(settings), connection: clientConfig(settings), embedded, deferredSchema }
}

async function databasePart(app: FastifyInstance, options: DatabasePartOptions): Promise<void> {
  const { config, log } = options
  const { pool, connection, embedded, deferredSchema } = options.connection
    ? givenDatabase(options.connection, config)
    : await configuredDatabase(config, log)
  let schemaReady = deferredSchema === undefined
  pool.on('error', (error) => log.warn({ err: error }, 'database connection lost'))
  const health = new HealthProbe(connection)

  const waiting: (() => Promise<void> | void)[] = []
  let retry: NodeJS.Timeout | undefined
  const becomeReady = async () => {
    schemaReady = true
    for (const start of waiting.splice(0)) await start()
  }
  if (deferredSchema) {
    const again = () => {
      deferredSchema()
        .then(becomeReady)
        .catch((error: unknown) => {
          if (error instanceof BootError) log.fatal({ err: error }, 'schema check failed')
          retry = setTimeout(again, SCHEMA_RETRY_MS)
        })
    }
    retry = setTimeout(again, SCHEMA_RETRY_MS)
  }

  app.decorate('database', {
    pool,
    health,
    connection,
    get schemaReady() {
      return schemaReady
    },
    async whenSchemaReady(start: () => Promise<void> | void) {
      if (schemaReady) await start()
      else waiting.push(start)
    },
  } satisfies BrokerDatabase)

  app.addHook('onClose', async () => {
    if (retry) clearTimeout(retry)
    // pool.end() resolves before the sockets close; a backend killed meanwhile must not crash the process.
    pool.on('error', () => undefined)
    await pool.end().catch(() => undefined)
    await health.close().catch(() => undefined)
    await embedded?.stop()
  })
}

/** The database part as a plugin (decorations visible to the parts registered after it). */
export default fp(databasePart, { name: 'queen-database' })
