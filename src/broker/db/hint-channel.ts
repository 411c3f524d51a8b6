/**
 * Hints between replicas through PostgreSQL (docs/operations.md, "Hints through PostgreSQL"): every broker LISTENs on
 * `queen_hints` on a dedicated connection (re-established on loss, followed by a full re-read of flags and a cache
 * flush) and publishes POP_WAKE, maintenance and CONFIG_INVALIDATE hints there, coalesced to at most one notification
 * every 25 ms, outside the push transactions. Its own notifications are ignored on receipt. A hint only triggers a
 * re-check; PostgreSQL decides.
 */
import { randomUUID } from 'node:crypto'
import pg from 'pg'
import type { Logger } from 'pino'

/** The channel name. */
export const HINT_CHANNEL = 'queen_hints'

/** A wake-up for parked pops of a queue (or one partition). */
export interface WakeHint {
  tenant: string
  queue: string
  partition: string | null
  /**
   * The origin's running count of wakes when this one was raised: the same wake reaches a replica over the
   * mesh and through PostgreSQL, and a mark not above the last one seen from that origin is not re-checked.
   */
  mark?: number
}

/** Hints carried between replicas. */
export type Hint =
  | { type: 'POP_WAKE'; wakes: WakeHint[] }
  | { type: 'MAINTENANCE_MODE_SET'; enabled: boolean }
  | { type: 'POP_MAINTENANCE_MODE_SET'; enabled: boolean }
  | { type: 'CONFIG_INVALIDATE'; tenant: string; queue: string | null }

/** What receivers do with hints. */
export interface HintHandlers {
  /** `origin` is the sender's instance id. */
  onHint(hint: Hint, origin: string): void
  /** The listener (re)connected: flags must be re-read and caches flushed. */
  onReconnect(): void
}

const COALESCE_MS = 25
const RECONNECT_MS = 1000
const MAX_WAKES_PER_NOTIFY = 500
// NOTIFY payloads are limited to 8000 bytes.
const MAX_PAYLOAD_BYTES = 7900

/** The LISTEN/NOTIFY hint channel of one broker. */
export class HintChannel {
  /** Distinguishes this process's own notifications. */
  readonly instance = randomUUID()
  private readonly config: pg.ClientConfig
  private readonly publisher: pg.Pool
  private handlers: HintHandlers = { onHint: () => undefined, onReconnect: () => undefined }
  private readonly log: Logger
  private listener: pg.Client | undefined
  private closed = false
  private pendingWakes = new Map<string, WakeHint>()
  private pendingOther: Hint[] = []
  private flushTimer: NodeJS.Timeout | undefined
  private reconnectTimer: NodeJS.Timeout | undefined
  /** Test hook: when true nothing is published (docs/reliability.md: notify.disabled). */
  disabled = false

  constructor(config: pg.ClientConfig, publisher: pg.Pool, log: Logger) {
    this.config = config
    this.publisher = publisher
    this.log = log.child({ component: 'hints' })
  }

  /** Starts listening, delivering to `handlers`; reconnects by itself when the connection is lost. */
  start(handlers: HintHandlers): Promise<void> {
    this.handlers = handlers
    // Resolves once the first connection attempt is over (listening, or a retry scheduled); the broker does
    // not wait for it, tests that rely on the first cache flush being behind them do.
    return this.connect()
  }

  /** Queues a hint for publication (wakes are coalesced per queue/partition). */
  publish(hint: Hint): void {
    if (this.closed || this.disabled) return
    if (hint.type === 'POP_WAKE') {
      for (const wake of hint.wakes)
        this.pendingWakes.set(`${wake.tenant}\u0000${wake.queue}\u0000${wake.partition ?? ''}`, wake)
    } else {
      this.pendingOther.push(hint)
    }
    this.flushTimer ??= setTimeout(() => {
      this.flushTimer = undefined
      void this.flush()
    }, COALESCE_MS)
  }

  /** Stops listening and publishing. */
  async close(): Promise<void> {
    this.closed = true
    if (this.flushTimer) clearTimeout(this.flushTimer)
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer)
    await this.listener?.end().catch(() => undefined)
    this.listener = undefined
  }

  private async flush(): Promise<void> {
    const payloads: string[] = []
    const wakes = [...this.pendingWakes.values()]
    this.pendingWakes.clear()
    for (let index = 0; index < wakes.length; index += MAX_WAKES_PER_NOTIFY) {
      payloads.push(this.encode({ type: 'POP_WAKE', wakes: wakes.slice(index, index + MAX_WAKES_PER_NOTIFY) }))
    }
    for (const hint of this.pendingOther.splice(0)) payloads.push(this.encode(hint))
    for (const payload of payloads) {
      if (Buffer.byteLength(payload) > MAX_PAYLOAD_BYTES) continue
      try {
        await this.publisher.query('SELECT pg_notify($1, $2)', [HINT_CHANNEL, payload])
      } catch (error) {
        this.log.debug({ err: error }, 'hint not published')
      }
    }
  }

  private encode(hint: Hint): string {
    return JSON.stringify({ ...hint, from: this.instance, ts: Date.now() })
  }

  private async connect(): Promise<void> {
    if (this.closed) return
    const client = new pg.Client(this.config)
    client.on('error', () => this.scheduleReconnect(client))
    client.on('end', () => this.scheduleReconnect(client))
    client.on('notification', (message) => this.receive(message.payload))
    try {
      await client.connect()
      await client.query(`LISTEN ${HINT_CHANNEL}`)
      this.listener = client
      this.handlers.onReconnect()
    } catch {
      this.scheduleReconnect(client)
    }
  }

  private scheduleReconnect(client: pg.Client): void {
    if (this.closed || this.reconnectTimer) return
    if (this.listener === client) this.listener = undefined
    void client.end().catch(() => undefined)
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined
      void this.connect()
    }, RECONNECT_MS)
    this.reconnectTimer.unref()
  }

  private receive(payload: string | undefined): void {
    if (!payload) return
    try {
      const hint = JSON.parse(payload) as Hint & { from?: string }
      if (hint.from === this.instance || typeof hint.from !== 'string') return
      this.handlers.onHint(hint, hint.from)
    } catch {
      // Malformed hints are ignored: they are only hints.
    }
  }
}
