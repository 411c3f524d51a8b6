/**
 * Where `queenctl proxy tenant|apikey` connect (docs/gateway.md, "Managing tenants and keys"): the gateway's own
 * database, with the same settings as `proxy serve`: `--pg-url`, else PROXY_PG_HOST and friends, else the embedded
 * server a running `proxy serve` recorded in PROXY_DATA_DIR. The gateway schema is applied first (idempotent, under
 * its lock), so the commands also work on a new database before the first `proxy serve`.
 */
import pg from 'pg'
import { ConfigError } from '../platform/config/config-error.js'
import { readEmbeddedConnection } from '../platform/postgres/embedded-postgres.js'
import { pgTlsOption } from '../platform/postgres/tls-option.js'
import { resolveGatewayConfig } from '../gateway/config/resolve.js'
import { applyGatewaySchema } from '../gateway/gateway-database.js'
import { EXIT, UserError } from './errors.js'

/** The connection settings of the gateway's database. */
export async function resolveGatewayConnection(
  pgUrl: string | undefined,
  env: NodeJS.ProcessEnv,
): Promise<pg.ClientConfig> {
  if (pgUrl) {
    try {
      new URL(pgUrl)
    } catch {
      throw new UserError('--pg-url is not a valid URL', { hint: 'use postgres://user:password@host:5432/database' })
    }
    return { connectionString: pgUrl }
  }
  let config
  try {
    config = resolveGatewayConfig({ env }).config
  } catch (error) {
    if (error instanceof ConfigError) throw new UserError(error.problems.join('\n'))
    throw error
  }
  if (config.pg.host) {
    return {
      host: config.pg.host,
      port: config.pg.port,
      user: config.pg.user,
      password: config.pg.password,
      database: config.pg.database,
      ssl: pgTlsOption(config.pg, 'PROXY_PG_SSL_CA'),
      connectionTimeoutMillis: config.pg.connectionTimeoutMs,
    }
  }
  const embedded = await readEmbeddedConnection(config.dataDir)
  if (!embedded) {
    throw new UserError('no gateway database to connect to', {
      exitCode: EXIT.server,
      hint: `pass --pg-url, set PROXY_PG_HOST, or start queenctl proxy serve (embedded PostgreSQL in ${config.dataDir})`,
    })
  }
  return embedded
}

/** Runs `work` on one connection to the gateway's database, its schema applied. */
export async function withGatewayDatabase<T>(
  pgUrl: string | undefined,
  work: (client: pg.Client) => Promise<T>,
): Promise<T> {
  const connection = await resolveGatewayConnection(pgUrl, process.env)
  try {
    await applyGatewaySchema(connection)
  } catch (error) {
    throw new UserError(`cannot reach the gateway database: ${(error as Error).message}`, {
      exitCode: EXIT.server,
      cause: error,
    })
  }
  const client = new pg.Client(connection)
  client.on('error', () => undefined)
  await client.connect()
  try {
    return await work(client)
  } finally {
    await client.end().catch(() => undefined)
  }
}
