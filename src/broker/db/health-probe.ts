/**
 * The readiness probe's database check (operations.md section 6): a round trip on a dedicated connection,
 * not the request pool, so a saturated pool does not fail the probe; 2 s timeout.
 */
import pg from 'pg'
import { SQL } from './queries/index.js'

const PROBE_TIMEOUT_MS = 2000

/** Checks that PostgreSQL answers. */
export class HealthProbe {
  private readonly pool: pg.Pool

  constructor(config: pg.ClientConfig) {
    this.pool = new pg.Pool({
      ...config,
      max: 1,
      connectionTimeoutMillis: PROBE_TIMEOUT_MS,
      query_timeout: PROBE_TIMEOUT_MS,
      statement_timeout: PROBE_TIMEOUT_MS,
      idleTimeoutMillis: 60_000,
    })
    // A dropped idle probe connection must not crash the process; the next check reconnects.
    this.pool.on('error', () => undefined)
  }

  /** True when PostgreSQL answered a round trip within the timeout. */
  async check(): Promise<boolean> {
    try {
      await this.pool.query(SQL.healthPing)
      return true
    } catch {
      return false
    }
  }

  /** Closes the dedicated connection. */
  async close(): Promise<void> {
    await this.pool.end()
  }
}
