/**
 * Where PostgreSQL-direct commands connect (docs/cli.md, "Global flags"): `--pg-url`, else the broker's PG_*
 * variables, else the context's `database` reference, else the embedded server recorded in
 * QUEEN_DATA_DIR when it is running; otherwise exit 2 with a hint.
 */
import os from 'node:os'
import path from 'node:path'
import type pg from 'pg'
import { readEmbeddedConnection } from '../broker/db/embedded-postgres.js'
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
  const value = (name: string) => (env[name] === '' ? undefined : env[name])
  const host = value('PG_HOST')
  if (host) {
    return {
      host,
      port: Number.parseInt(value('PG_PORT') ?? '5432', 10),
      user: value('PG_USER') ?? 'postgres',
      password: value('PG_PASSWORD') ?? 'postgres',
      database: value('PG_DATABASE') ?? value('PG_DB') ?? 'postgres',
      ssl:
        value('PG_USE_SSL')?.toLowerCase() === 'true' || value('PG_USE_SSL') === '1'
          ? { rejectUnauthorized: true }
          : undefined,
    }
  }
  if (contextDatabase) return resolvePgConnection(contextDatabase, {})
  const defaultDataDir = process.getuid?.() === 0 ? '/var/lib/queen/data' : path.join(os.homedir(), '.queen', 'data')
  const dataDir = value('QUEEN_DATA_DIR') ?? defaultDataDir
  const embedded = await readEmbeddedConnection(dataDir)
  if (!embedded) {
    throw new UserError('no PostgreSQL to connect to', {
      exitCode: EXIT.server,
      hint: `pass --pg-url, set PG_HOST, or start a broker on the embedded PostgreSQL in ${dataDir}`,
    })
  }
  return embedded
}
