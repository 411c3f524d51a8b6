/**
 * How the broker's PostgreSQL settings (PG_*, DB_CONNECTION_TIMEOUT) become pg connection options: one
 * mapping for the broker's boot, `env check` and the CLI's database commands, TLS and its CA included.
 */
import type pg from 'pg'
import { pgTlsOption as platformTlsOption } from '../../platform/postgres/tls-option.js'
import type { BrokerConfig } from './broker-config.js'

/** The `ssl` option of pg for these settings; undefined without TLS. */
export function pgTlsOption(settings: BrokerConfig['pg']): pg.ConnectionConfig['ssl'] {
  return platformTlsOption(settings, 'PG_SSL_CA')
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
