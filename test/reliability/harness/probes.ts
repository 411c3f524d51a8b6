/**
 * What the harness watches besides the ledger: each broker's `/health` (readiness) and `/health/live`
 * (liveness) every 200 ms, and the consumer cursors in PostgreSQL, sampled on the primary every second and
 * around every switch, which must never move backwards (issue 38: no cursor moves backwards across the
 * switch).
 */
import type { BrokerNode } from './broker-node.js'
import type { PgPair } from './pg-cluster.js'

/** One sample of one broker's health routes: HTTP status, or 0 for no answer within the timeout. */
export interface HealthSample {
  broker: string
  t: number
  ready: number
  live: number
  /** Records waiting in the broker's spool, from /health (undefined when it did not answer). */
  spooled?: number
}

const PROBE_TIMEOUT_MS = 1500

async function status(url: string): Promise<{ code: number; body?: any }> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) })
    const body = await response.json().catch(() => undefined)
    return { code: response.status, body }
  } catch {
    return { code: 0 }
  }
}

/** Samples /health and /health/live of every broker until stopped. */
export class HealthSampler {
  readonly samples: HealthSample[] = []
  private running = true
  private readonly loops: Promise<void>[]

  constructor(brokers: BrokerNode[]) {
    this.loops = brokers.map((broker) => this.loop(broker))
  }

  private async loop(broker: BrokerNode): Promise<void> {
    while (this.running) {
      const t = Date.now()
      const [ready, live] = await Promise.all([status(`${broker.url}/health`), status(`${broker.url}/health/live`)])
      const spooled = ready.body?.spool?.records
      this.samples.push({
        broker: broker.name,
        t,
        ready: ready.code,
        live: live.code,
        spooled: typeof spooled === 'number' ? spooled : undefined,
      })
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, 200 - (Date.now() - t))))
    }
  }

  /** The latest sample of a broker. */
  latest(broker: string): HealthSample | undefined {
    for (let index = this.samples.length - 1; index >= 0; index--) {
      if (this.samples[index]!.broker === broker) return this.samples[index]
    }
    return undefined
  }

  async stop(): Promise<void> {
    this.running = false
    await Promise.all(this.loops)
  }
}

/** A cursor that was seen lower than before. */
export interface CursorRegression {
  key: string
  from: string
  to: string
  t: number
  label: string
}

/** Samples queen.consumers cursors on the current primary; any decrease is a regression. */
export class CursorSampler {
  readonly regressions: CursorRegression[] = []
  samples = 0
  private readonly highest = new Map<string, bigint>()
  private running = true
  private readonly loop: Promise<void>
  private readonly pair: PgPair

  constructor(pair: PgPair) {
    this.pair = pair
    this.loop = this.run()
  }

  /** Takes one sample now (before and after a switch); a failure (no primary) is skipped. */
  async sample(label: string): Promise<boolean> {
    let rows: { key: string; cursor: string }[]
    try {
      rows = await this.pair.query(
        this.pair.primary,
        `SELECT partition_id::text || '/' || consumer_group AS key, cursor_position::text AS cursor
           FROM queen.consumers`,
      )
    } catch {
      return false
    }
    const t = Date.now()
    this.samples++
    for (const row of rows) {
      const value = BigInt(row.cursor)
      const before = this.highest.get(row.key)
      if (before !== undefined && value < before) {
        this.regressions.push({ key: row.key, from: before.toString(), to: row.cursor, t, label })
      }
      if (before === undefined || value > before) this.highest.set(row.key, value)
    }
    return true
  }

  private async run(): Promise<void> {
    while (this.running) {
      await this.sample('periodic')
      await new Promise((resolve) => setTimeout(resolve, 1000))
    }
  }

  async stop(): Promise<void> {
    this.running = false
    await this.loop
  }
}
