/**
 * Listens for the gateway schema's `queen_proxy_keys` notifications (a key revoked, a tenant suspended or deleted)
 * on a connection of its own, reconnecting after a failure. While it is not listening, the verifier trusts no
 * cached verdict for long (key-verifier.ts): a missed notification must not keep a revoked key alive.
 */
import pg from 'pg'
import type { Logger } from 'pino'

export const KEY_CHANNEL = 'queen_proxy_keys'
const RECONNECT_MS = 1000

export class KeyChangeListener {
  private client: pg.Client | undefined
  private closed = false
  private retry: NodeJS.Timeout | undefined
  private listeningNow = false

  private readonly connection: pg.ClientConfig
  private readonly onChange: (payload: string) => void
  private readonly onGap: () => void
  private readonly log: Logger

  /** `onGap` is called when listening stops or starts again: cached verdicts may have missed a change meanwhile. */
  constructor(connection: pg.ClientConfig, onChange: (payload: string) => void, onGap: () => void, log: Logger) {
    this.connection = connection
    this.onChange = onChange
    this.onGap = onGap
    this.log = log
  }

  /** Whether a notification would reach this gateway now. */
  get listening(): boolean {
    return this.listeningNow
  }

  /** Connects and listens; resolves once listening or after the first failure (it retries in the background). */
  async start(): Promise<void> {
    await this.connect()
  }

  private async connect(): Promise<void> {
    if (this.closed) return
    const client = new pg.Client({ ...this.connection, application_name: 'queenctl-proxy-listener' })
    client.on('error', () => undefined)
    client.on('notification', (message) => {
      if (message.channel === KEY_CHANNEL && message.payload) this.onChange(message.payload)
    })
    client.on('end', () => this.lost(client))
    try {
      await client.connect()
      await client.query(`LISTEN ${KEY_CHANNEL}`)
      this.client = client
      this.listeningNow = true
      // Changes made while nobody listened were not heard: drop what was cached before.
      this.onGap()
    } catch (error) {
      this.log.warn({ err: error }, 'key-change listener: cannot listen; cached keys are re-checked every second')
      await client.end().catch(() => undefined)
      this.scheduleRetry()
    }
  }

  private lost(client: pg.Client): void {
    if (this.client !== client) return
    this.client = undefined
    this.listeningNow = false
    this.onGap()
    if (!this.closed) {
      this.log.warn('key-change listener: connection lost; reconnecting')
      this.scheduleRetry()
    }
  }

  private scheduleRetry(): void {
    if (this.closed || this.retry) return
    this.retry = setTimeout(() => {
      this.retry = undefined
      void this.connect()
    }, RECONNECT_MS)
    this.retry.unref()
  }

  async close(): Promise<void> {
    this.closed = true
    if (this.retry) clearTimeout(this.retry)
    const client = this.client
    this.client = undefined
    this.listeningNow = false
    await client?.end().catch(() => undefined)
  }
}
