/**
 * The gateway's own PostgreSQL (docs/gateway.md, "Its database"): the embedded server in PROXY_DATA_DIR unless
 * PROXY_PG_HOST names one, with the gateway schema applied under its advisory lock before anything is served.
 */
import pg from 'pg'
import type { Logger } from 'pino'
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../platform/postgres/embedded-postgres.js'
import { clientConfig, createPool, type PoolSettings } from '../platform/postgres/pool.js'
import { applySchema } from '../platform/postgres/schema-apply.js'
import { pgTlsOption } from '../platform/postgres/tls-option.js'
import type { GatewayConfig } from './config/gateway-config.js'
import { GATEWAY_SCHEMA } from './db/gateway-schema.js'

/** The gateway's database, open. */
export interface GatewayDatabase {
  readonly pool: pg.Pool
  /** For connections of their own (the key-change listener). */
  readonly connection: pg.ClientConfig
  readonly embedded?: EmbeddedPostgres
  close(): Promise<void>
}

function poolSettings(config: GatewayConfig): Omit<PoolSettings, 'host' | 'port' | 'user' | 'password' | 'database'> {
  return {
    poolSize: config.pg.poolSize,
    idleTimeoutMs: 30_000,
    connectionTimeoutMs: config.pg.connectionTimeoutMs,
    statementTimeoutMs: config.pg.statementTimeoutMs,
    lockTimeoutMs: 10_000,
    keepalivesIdleSeconds: 60,
    applicationName: 'queenctl-proxy',
  }
}

/** Applies the gateway schema on a connection of its own (no statement timeout: a first apply may wait on the lock). */
export async function applyGatewaySchema(connection: pg.ClientConfig): Promise<void> {
  const client = new pg.Client({ ...connection, statement_timeout: 0, query_timeout: undefined })
  await client.connect()
  try {
    const result = await applySchema(client, GATEWAY_SCHEMA)
    if (result.missing.length > 0) throw new Error(`gateway schema incomplete: ${result.missing.join(', ')}`)
  } finally {
    await client.end().catch(() => undefined)
  }
}

/** Opens the configured database (or the one a test hands in) and applies the schema. */
export async function openGatewayDatabase(
  config: GatewayConfig,
  log: Logger,
  given?: pg.ClientConfig,
): Promise<GatewayDatabase> {
  let embedded: EmbeddedPostgres | undefined
  let settings: PoolSettings
  const base = poolSettings(config)
  if (given) {
    settings = {
      ...base,
      host: String(given.host ?? '127.0.0.1'),
      port: Number(given.port ?? 5432),
      user: String(given.user ?? 'postgres'),
      password: String(given.password ?? ''),
      database: String(given.database ?? 'postgres'),
    }
  } else if (config.pg.host) {
    settings = {
      ...base,
      host: config.pg.host,
      port: config.pg.port,
      user: config.pg.user,
      password: config.pg.password,
      database: config.pg.database,
      ssl: pgTlsOption(config.pg, 'PROXY_PG_SSL_CA'),
    }
    log.info({ mode: 'external', host: config.pg.host, port: config.pg.port, database: config.pg.database }, 'database')
  } else {
    const pgLog = log.child({ component: 'embedded-postgres' })
    embedded = await startEmbeddedPostgres({
      dataDir: config.dataDir,
      port: config.embeddedPgPort,
      onLog: (line) => pgLog.debug(line),
      onUnexpectedExit: (code, signal) => pgLog.error({ code, signal }, 'embedded postgres exited'),
    })
    settings = { ...base, ...embedded.connection }
    log.info(
      { mode: 'embedded', dir: config.dataDir, port: embedded.connection.port, version: embedded.version },
      'database',
    )
  }
  const connection = clientConfig(settings)
  try {
    await applyGatewaySchema(connection)
  } catch (error) {
    await embedded?.stop()
    throw error
  }
  const pool = createPool(settings)
  pool.on('error', (error) => log.warn({ err: error }, 'gateway pool: idle connection failed'))
  return {
    pool,
    connection,
    embedded,
    async close() {
      await pool.end().catch(() => undefined)
      await embedded?.stop()
    },
  }
}
