/**
 * How the broker's PostgreSQL settings (PG_*, DB_CONNECTION_TIMEOUT) become pg connection options: one
 * mapping for the broker's boot, `env check` and the CLI's database commands, TLS and its CA included.
 */
import { readFileSync } from 'node:fs'
import type pg from 'pg'
import { ConfigError } from '../../platform/config/config-error.js'
import type { BrokerConfig } from './broker-config.js'

/** The `ssl` option of pg for these settings; undefined without TLS. */
export function pgTlsOption(settings: BrokerConfig['pg']): pg.ConnectionConfig['ssl'] {
  if (!settings.useSsl) return undefined
  return {
    rejectUnauthorized: settings.sslRejectUnauthorized,
    ...(settings.sslCa ? { ca: readCa(settings.sslCa) } : {}),
  }
}

function readCa(file: string): string {
  try {
    return readFileSync(file, 'utf8')
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message
    throw new ConfigError([`config error: PG_SSL_CA=${JSON.stringify(file)} cannot be read (${reason})`])
  }
}

/** A single connection to the external server these settings name (PG_HOST set). */
export function externalPgClientConfig(settings: BrokerConfig['pg']): pg.ClientConfig {
  return {
    host: settings.host,
    port: settings.port,
    user: settings.user,
    password: settings.password,
    database: settings.database,
    ssl: pgTlsOption(settings),
    connectionTimeoutMillis: settings.connectionTimeoutMs,
  }
}
