/**
 * Statements stuck on a silent network (docs/reliability.md, "What the harness found"): with packets dropped
 * and no reset, a statement already sent waits for pg's client-side deadline (DB_STATEMENT_TIMEOUT + 1 s, 31 s
 * by default) before its push is spooled. While a pooled connection has been checked out longer than
 * `stallMs`, the watchdog asks the readiness probe; when PostgreSQL is unreachable from a fresh connection
 * too, it marks the database down (new pushes go to the spool) and closes the stalled connections, so their
 * statements fail at once as an outage and their pushes are spooled. A slow but reachable server is left alone.
 */
import type { Socket } from 'node:net'
import type pg from 'pg'
import type { Logger } from 'pino'
import type { DatabaseState } from '../../platform/postgres/health-probe.js'

/** What the watchdog needs of the readiness probe and of the broker's reachability. */
export interface StallWatchdogParts {
  pool: pg.Pool
  probe: { state(): Promise<DatabaseState> }
  markDown: (error: Error) => void
  log: Logger
}

/** Checkout age that makes the watchdog ask the probe, and how often it looks. */
export interface StallWatchdogTiming {
  stallMs: number
  intervalMs: number
}

const DEFAULT_TIMING: StallWatchdogTiming = { stallMs: 3000, intervalMs: 1000 }

/** Watches the request pool's checkouts for statements stuck on an unreachable server. */
export class StallWatchdog {
  private readonly checkedOut = new Map<pg.PoolClient, number>()
  private readonly parts: StallWatchdogParts
  private readonly timing: StallWatchdogTiming
  private timer: NodeJS.Timeout | undefined
  private checking = false

  constructor(parts: StallWatchdogParts, timing: StallWatchdogTiming = DEFAULT_TIMING) {
    this.parts = parts
    this.timing = timing
    parts.pool.on('acquire', (client) => this.checkedOut.set(client, Date.now()))
    parts.pool.on('release', (_error, client) => this.checkedOut.delete(client))
    parts.pool.on('remove', (client) => this.checkedOut.delete(client))
    this.timer = setInterval(() => void this.look(), timing.intervalMs)
    this.timer.unref()
  }

  /** Stops watching (shutdown). */
  stop(): void {
    if (this.timer) clearInterval(this.timer)
    this.timer = undefined
  }

  private async look(): Promise<void> {
    if (this.checking || !this.stalled().length) return
    this.checking = true
    try {
      if ((await this.parts.probe.state()) !== 'unreachable') return
      // Read again: a statement that finished while the probe ran is not stalled any more.
      const stalled = this.stalled()
      if (!stalled.length) return
      this.parts.markDown(new Error('database unreachable: statements stalled on the network'))
      this.parts.log.warn({ connections: stalled.length }, 'closing connections stalled on an unreachable database')
      for (const client of stalled) closeSocket(client)
    } catch (error) {
      this.parts.log.warn({ err: error }, 'stall watchdog check failed')
    } finally {
      this.checking = false
    }
  }

  private stalled(): pg.PoolClient[] {
    const before = Date.now() - this.timing.stallMs
    return [...this.checkedOut].filter(([, since]) => since <= before).map(([client]) => client)
  }
}

/**
 * Destroys the client's socket: pg fails the statement in flight with "Connection terminated unexpectedly",
 * classified as an outage, and the pool drops the client when it is released with that error. pg has no
 * public call for this (end() waits for the server, which is unreachable).
 */
function closeSocket(client: pg.PoolClient): void {
  const connection = (client as unknown as { connection?: { stream?: Socket } }).connection
  connection?.stream?.destroy()
}
