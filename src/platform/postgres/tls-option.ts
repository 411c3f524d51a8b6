/**
 * How a server's PostgreSQL TLS settings become pg's `ssl` option (docs/operations.md, "TLS to PostgreSQL"):
 * one mapping for the broker (PG_SSL_*) and the gateway (PROXY_PG_SSL_*).
 */
import { readFileSync } from 'node:fs'
import type pg from 'pg'
import { ConfigError } from '../config/config-error.js'

/** The TLS settings of a server's PostgreSQL connection. */
export interface PgTlsSettings {
  readonly useSsl: boolean
  readonly sslRejectUnauthorized: boolean
  readonly sslCa?: string
}

/** The `ssl` option of pg; undefined without TLS. `caVariable` names the variable in an error. */
export function pgTlsOption(settings: PgTlsSettings, caVariable = 'PG_SSL_CA'): pg.ConnectionConfig['ssl'] {
  if (!settings.useSsl) return undefined
  return {
    rejectUnauthorized: settings.sslRejectUnauthorized,
    ...(settings.sslCa ? { ca: readCa(settings.sslCa, caVariable) } : {}),
  }
}

function readCa(file: string, variable: string): string {
  try {
    return readFileSync(file, 'utf8')
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message
    throw new ConfigError([`config error: ${variable}=${JSON.stringify(file)} cannot be read (${reason})`])
  }
}
