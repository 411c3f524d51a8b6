/**
 * A real `queenctl serve` child process for the reliability tests: PostgreSQL reached through a port the
 * test controls (usually a fault proxy), the spool in a folder of the test's, short timeouts so outages
 * are noticed quickly.
 */
import { inject } from 'vitest'
import { startCli, type TestProcess } from './cli-harness.js'

/** Where the broker finds PostgreSQL and keeps its spool. */
export interface ServeTarget {
  pgPort: number
  database: string
  spool: string
  /** Extra or overriding environment variables. */
  env?: Record<string, string>
}

/** Starts `serve` and waits until it listens; answers the process and its base URL. */
export async function startServe(target: ServeTarget): Promise<{ process: TestProcess; url: string }> {
  const connection = inject('pgConnection')
  const process = startCli(['serve'], {
    env: {
      PORT: '0',
      HOST: '127.0.0.1',
      PG_HOST: '127.0.0.1',
      PG_PORT: String(target.pgPort),
      PG_USER: connection.user,
      PG_PASSWORD: connection.password,
      PG_DATABASE: target.database,
      FILE_BUFFER_DIR: target.spool,
      FILE_BUFFER_FLUSH_MS: '50',
      DB_CONNECTION_TIMEOUT: '1000',
      QUEEN_STATE_REFRESH_MS: '1000',
      LOG_LEVEL: 'info',
      ...target.env,
    },
  })
  const match = await process.waitFor(/\blistening\b.*\bhttp=([\d.]+):(\d+)/, 30_000)
  return { process, url: `http://${match[1]}:${match[2]}` }
}
