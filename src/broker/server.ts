/**
 * Boots a broker (operations.md section 3) and shuts it down (section 5): database (embedded or external),
 * schema under the advisory lock, services, background jobs, HTTP listener, signals.
 */
import type { FastifyInstance } from 'fastify'
import type pg from 'pg'
import type { Logger } from 'pino'
import { buildApp } from './app.js'
import type { BrokerConfig } from './config/broker-config.js'
import { startEmbeddedPostgres, type EmbeddedPostgres } from './db/embedded-postgres.js'
import { HealthProbe } from './db/health-probe.js'
import { classifyPgError } from './db/pg-errors.js'
import { clientConfig, createPool, type PoolSettings } from './db/pool.js'
import { applySchema, installedSchemaVersion, requiredSchemaVersion } from './db/schema-apply.js'
import type { BackgroundService } from './jobs/background-loop.js'
import { leaseReclaimJob } from './jobs/lease-reclaim-job.js'
import { maintenanceJobs } from './jobs/maintenance-jobs.js'
import { createServices, type BrokerServices } from './services.js'
import { createDurability, openSpool } from './durability.js'
import type { Spool } from './spool/spool.js'
import { SpoolLockedError } from './spool/spool-directory.js'
import { BROKER_VERSION } from './version.js'
import { unbuiltSettings } from './unbuilt-settings.js'
import pgModule from 'pg'
import { readFileSync } from 'node:fs'

/** A running broker. */
export interface RunningBroker {
  app: FastifyInstance
  services: BrokerServices
  /** `http://host:port` the broker listens on. */
  url: string
  /** Drains and stops everything; resolves with the exit code (0 clean, 2 drain timeout). */
  shutdown(reason: string): Promise<number>
}

/** Raised when the boot cannot continue (exit code 1 for configuration, 2 for runtime). */
export class BootError extends Error {
  readonly exitCode: number

  constructor(message: string, exitCode: number, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'BootError'
    this.exitCode = exitCode
  }
}

const SCHEMA_RETRY_MS = 1000

function sslOption(config: BrokerConfig): pg.ConnectionConfig['ssl'] {
  if (!config.pg.useSsl) return undefined
  return {
    rejectUnauthorized: config.pg.sslRejectUnauthorized,
    ...(config.pg.sslCa ? { ca: readFileSync(config.pg.sslCa, 'utf8') } : {}),
  }
}

async function openDatabase(
  config: BrokerConfig,
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
        ssl: sslOption(config),
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
  const client = new pgModule.Client(clientConfig(settings))
  try {
    await client.connect()
    const result = await client.query<{ version: string; max_connections: string }>(
      "SELECT current_setting('server_version') AS version, current_setting('max_connections') AS max_connections",
    )
    const row = result.rows[0]
    log.info(
      {
        mode: 'external',
        host: settings.host,
        port: settings.port,
        version: row?.version,
        max_connections: Number(row?.max_connections),
      },
      'database',
    )
  } finally {
    await client.end().catch(() => undefined)
  }
}

/** Applies (or checks) the schema once; throws on failure. */
async function prepareSchema(config: BrokerConfig, settings: PoolSettings, log: Logger): Promise<void> {
  const client = new pgModule.Client({ ...clientConfig(settings), statement_timeout: 0, query_timeout: undefined })
  await client.connect()
  try {
    if (!config.applySchema) {
      const installed = await installedSchemaVersion(client)
      const required = requiredSchemaVersion()
      if (installed < required) {
        throw new BootError(
          `schema version ${installed} is installed but this build needs ${required}; run queenctl schema apply (QUEEN_APPLY_SCHEMA=0)`,
          1,
        )
      }
      log.info({ version: installed, reason: 'QUEEN_APPLY_SCHEMA=0' }, 'schema skipped')
      return
    }
    const result = await applySchema(client)
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

/** Boots the broker and starts listening. */
export async function startBroker(config: BrokerConfig, log: Logger): Promise<RunningBroker> {
  const unbuilt = unbuiltSettings(config)
  if (unbuilt.length > 0) throw new BootError(unbuilt.join('\n'), 1)
  let spool: Spool
  try {
    spool = await openSpool(config, log)
  } catch (error) {
    throw new BootError((error as Error).message, error instanceof SpoolLockedError ? 1 : 2, { cause: error })
  }
  let opened
  try {
    opened = await openDatabase(config, log)
  } catch (error) {
    await spool.close()
    throw error
  }
  const { settings, embedded } = opened
  let schemaReady = false
  try {
    if (!embedded) await describeServer(settings, log)
    await prepareSchema(config, settings, log)
    schemaReady = true
  } catch (error) {
    if (error instanceof BootError || classifyPgError(error) !== 'unavailable') {
      await spool.close()
      await embedded?.stop()
      throw error instanceof BootError
        ? error
        : new BootError(`schema apply failed: ${(error as Error).message}`, 2, { cause: error })
    }
    log.warn({ err: error }, 'schema deferred')
  }

  const pool = createPool(settings)
  pool.on('error', (error) => log.warn({ err: error }, 'database connection lost'))
  const health = new HealthProbe(clientConfig(settings))
  const durability = createDurability(
    config,
    { spool, pool, probe: health, listenConfig: clientConfig(settings), databaseUp: schemaReady },
    () => schemaReady,
    log,
  )
  const services = createServices(
    {
      serverId: config.serverId,
      version: BROKER_VERSION,
      maxBodyBytes: config.maxBodyBytes,
      maxBatchItems: config.maxBatchItems,
      maxPopBatch: config.maxPopBatch,
      defaultTimeoutMs: config.defaultTimeoutMs,
      defaultBatchSize: config.defaultBatchSize,
      defaultSubscriptionMode: config.defaultSubscriptionMode === 'all' ? 'all' : 'new',
      stateRefreshMs: config.jobs.stateRefreshMs,
      poolSize: config.pg.poolSize,
      encryptionKey: config.encryptionKey,
      popWait: config.popWait,
      testHooks: config.testHooks,
      statsIntervalMs: config.jobs.statsIntervalMs,
      metricsAggregateIntervalSeconds: config.jobs.metricsAggregateIntervalSeconds,
      logStatsIntervalMs: config.log.statsIntervalMs,
      metricsMaxQueues: config.log.metricsMaxQueues,
    },
    pool,
    health,
    (error, context) => log.error({ err: error, context }, 'background error'),
    { log, spool, dbHealth: durability.dbHealth, hints: durability.hints },
  )
  durability.attach(services)
  const app = await buildApp(services, { loggerInstance: log.child({ component: 'http' }) })
  const jobs: BackgroundService[] = [
    leaseReclaimJob(pool, services.waiters, services.events, config.jobs.leaseReclaimIntervalMs, log),
    ...durability.jobs,
    ...services.observability.jobs,
    ...maintenanceJobs({
      pool,
      config: config.jobs,
      log,
      onDeleted: (deleted) => {
        if (deleted.deadLettered > 0)
          services.events.emit('deadLettered', deleted.tenant, deleted.queue, deleted.deadLettered)
      },
    }),
  ]

  log.info({ peers: 0, auth: 'off', listening: 'no', server_id: config.serverId }, 'mesh')

  let schemaRetry: NodeJS.Timeout | undefined
  const becomeReady = () => {
    schemaReady = true
    services.state.phase = 'ready'
    services.maintenance
      .load('database')
      .catch((error: unknown) => log.warn({ err: error }, 'maintenance flags not read'))
    void durability.hints.start()
    for (const job of jobs) job.start()
    durability.kickReplay()
  }
  if (schemaReady) {
    becomeReady()
  } else {
    const retry = () => {
      prepareSchema(config, settings, log)
        .then(becomeReady)
        .catch((error: unknown) => {
          if (error instanceof BootError) log.fatal({ err: error }, 'schema check failed')
          schemaRetry = setTimeout(retry, SCHEMA_RETRY_MS)
        })
    }
    schemaRetry = setTimeout(retry, SCHEMA_RETRY_MS)
  }

  try {
    await app.listen({ host: config.host, port: config.port })
  } catch (error) {
    await Promise.all(jobs.map((job) => job.stop()))
    await durability.close()
    await spool.close()
    await pool.end()
    await health.close()
    await embedded?.stop()
    throw new BootError(`cannot listen on ${config.host}:${config.port}: ${(error as Error).message}`, 2, {
      cause: error,
    })
  }
  const address = app.server.address()
  const port = typeof address === 'object' && address ? address.port : config.port
  log.info({ http: `${config.host}:${port}`, dashboard: 'off' }, 'listening')

  let shuttingDown: Promise<number> | undefined
  const shutdown = (reason: string): Promise<number> => {
    shuttingDown ??= (async () => {
      log.info({ phase: 'draining', reason, parked_answered: services.waiters.parked }, 'shutdown')
      services.state.phase = 'draining'
      if (schemaRetry) clearTimeout(schemaRetry)
      services.waiters.shutdown()
      // Let the parked answers (sent with Connection: close) reach their sockets before closing.
      await new Promise((resolve) => setImmediate(resolve))
      let exitCode = 0
      const timeout = new Promise<'timeout'>((resolve) =>
        setTimeout(() => resolve('timeout'), config.shutdownTimeoutMs).unref(),
      )
      const closed = app.close().then(() => 'closed' as const)
      app.server.closeIdleConnections()
      if ((await Promise.race([closed, timeout])) === 'timeout') {
        exitCode = 2
        app.server.closeAllConnections()
      }
      await Promise.all(jobs.map((job) => job.stop()))
      await durability.close()
      // Seal the active segment (fsync, rename, fsync the directory) before the pool goes.
      await spool.close().catch((error: unknown) => log.error({ err: error }, 'spool seal failed'))
      await pool.end().catch(() => undefined)
      await health.close().catch(() => undefined)
      await embedded?.stop()
      log.info({ phase: 'stopped', exit_code: exitCode }, 'shutdown')
      return exitCode
    })()
    return shuttingDown
  }

  return { app, services, url: `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${port}`, shutdown }
}
