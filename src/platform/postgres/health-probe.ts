/**
 * The readiness probe's database check (docs/operations.md, "Probes"): a round trip on a dedicated connection,
 * not the request pool, so a saturated pool does not fail the probe; 2 s timeout. A server that answers but
 * cannot write (a standby, a demoted primary) is not ready: pushes spool until a writable primary answers.
 */
import pg from 'pg'
import { loadSqlRegistry } from './sql-registry.js'

const PROBE_TIMEOUT_MS = 2000
const { statements } = loadSqlRegistry(new URL('./sql/', import.meta.url), { healthPing: 'health-ping.sql' })

/** What the probe found. */
export type DatabaseState = 'writable' | 'read-only' | 'unreachable'

/** Checks that PostgreSQL answers and takes writes. */
export class HealthProbe {
  private readonly pool: pg.Pool
  /** The check under way: callers that come while it runs share its answer. */
  private running: Promise<DatabaseState> | undefined

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
    // Nor one that dies during a check: pg-pool hears a client's 'error' only while it is idle (issue 38).
    this.pool.on('connect', (client) => client.on('error', () => undefined))
  }

  /** True when PostgreSQL answered a round trip within the timeout and takes writes. */
  async check(): Promise<boolean> {
    return (await this.state()) === 'writable'
  }

  /**
   * Whether the server answers and takes writes. A connection that found a read-only server is closed, so
   * the next check connects again: the address may lead to the new primary by then (a failover). A kept
   * connection the server has since closed (a restart, a terminated session) costs one fresh attempt, not
   * an "unreachable" answer.
   */
  state(): Promise<DatabaseState> {
    // One round trip for every caller waiting on it: checks that queued for the single connection each waited
    // the others' round trips, so under load (probes, load balancers and dashboards asking /health at once)
    // the last ones timed out and a healthy database answered 503.
    this.running ??= this.freshState().finally(() => {
      this.running = undefined
    })
    return this.running
  }

  private async freshState(): Promise<DatabaseState> {
    const first = await this.attempt()
    return first === 'connection-lost' ? toState(await this.attempt()) : first
  }

  private async attempt(): Promise<DatabaseState | 'connection-lost'> {
    let client: pg.PoolClient
    try {
      client = await this.pool.connect()
    } catch {
      return 'unreachable'
    }
    try {
      const result = await client.query<{ read_only: boolean }>(statements.healthPing.text)
      const readOnly = result.rows[0]?.read_only !== false
      client.release(readOnly ? new Error('read-only server') : undefined)
      return readOnly ? 'read-only' : 'writable'
    } catch (error) {
      client.release(error instanceof Error ? error : new Error(String(error)))
      return 'connection-lost'
    }
  }

  /** Closes the dedicated connection. */
  async close(): Promise<void> {
    await this.pool.end()
  }
}

function toState(outcome: DatabaseState | 'connection-lost'): DatabaseState {
  return outcome === 'connection-lost' ? 'unreachable' : outcome
}
