/**
 * Where PostgreSQL-direct commands connect (docs/cli.md): `--pg-url`, else the broker's PG_* variables
 * (read by the broker's own variable table), else the context's `database` reference, else the embedded server recorded in
 * QUEEN_DATA_DIR when it is running; otherwise exit 2 with a hint.
 */
import type pg from 'pg'
import { externalPgClientConfig } from '../broker/config/pg-client-config.js'
import { resolveDatabaseConfig } from '../broker/config/resolve.js'
import { readEmbeddedConnection } from '../platform/postgres/embedded-postgres.js'
import { EXIT, UserError } from './errors.js'

/** Resolves the connection of a P command; `contextDatabase` is the resolved DSN of the context, if any. */
export async function resolvePgConnection(
  pgUrl: string | undefined,
  env: NodeJS.ProcessEnv,
  contextDatabase?: string,
): Promise<pg.ClientConfig> {
  if (pgUrl) {
    try {
      new URL(pgUrl)
    } catch {
      throw new UserError(`--pg-url is not a valid URL`, {
        exitCode: EXIT.user,
        hint: 'use postgres://user:password@host:5432/database',
      })
    }
    return { connectionString: pgUrl }
  }
  // The broker's own rows: every PG_* variable it honours (TLS and its CA included) works here too.
  const { pg: settings, dataDir } = resolveDatabaseConfig({ env })
  if (settings.host) return externalPgClientConfig(settings)
  if (contextDatabase) return resolvePgConnection(contextDatabase, {})
  const embedded = await readEmbeddedConnection(dataDir)
  if (!embedded) {
    throw new UserError('no PostgreSQL to connect to', {
      exitCode: EXIT.server,
      hint: `pass --pg-url, set PG_HOST, or start a broker on the embedded PostgreSQL in ${dataDir}`,
    })
  }
  return embedded
}
