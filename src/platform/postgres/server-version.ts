/**
 * The oldest PostgreSQL the servers of this package run on, in one place: the broker refuses an older
 * server at boot, and `db check` and `schema apply` say so before touching it (docs/operations.md).
 */
import type pg from 'pg'

/** The oldest supported major version. */
export const MINIMUM_POSTGRES_MAJOR = 14

/** What a server says of itself. */
export interface ServerFacts {
  /** `server_version`, e.g. `15.18 (Debian 15.18-0+deb12u1)`. */
  version: string
  /** `server_version_num`, e.g. 150018. */
  versionNum: number
  maxConnections: number
}

/** Reads the version and connection limit of the server `client` is connected to. */
export async function readServerFacts(client: pg.ClientBase): Promise<ServerFacts> {
  const result = await client.query<{ version: string; num: string; max_connections: string }>(
    `SELECT current_setting('server_version') AS version, current_setting('server_version_num') AS num,
            current_setting('max_connections') AS max_connections`,
  )
  const row = result.rows[0]!
  return { version: row.version, versionNum: Number(row.num), maxConnections: Number(row.max_connections) }
}

/** Why this server is too old, or undefined when it is supported. */
export function serverVersionProblem(facts: Pick<ServerFacts, 'version' | 'versionNum'>): string | undefined {
  return Math.floor(facts.versionNum / 10_000) >= MINIMUM_POSTGRES_MAJOR
    ? undefined
    : `PostgreSQL ${facts.version} is too old: ${MINIMUM_POSTGRES_MAJOR} or newer is required`
}
