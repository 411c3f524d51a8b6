/**
 * Token buckets shared by every gateway replica (docs/gateway.md, "Quotas and rate limits"). The bucket itself lives
 * in the gateway's database (`queen_proxy.take_tokens`, one clock for all replicas); a replica takes tokens from it
 * in chunks of a tenth of a second's worth and spends them locally, so requests cost no database trip until the
 * chunk is spent. Every token admitted was granted by the shared bucket, so the replicas together never admit more
 * than the bucket's capacity plus its rate times the time, whatever share of the traffic each replica sees.
 */
import type pg from 'pg'
import type { Logger } from 'pino'
import { gatewayQuery } from '../store/run.js'
import { bucketCapacity, chunkSize, LEASE_TTL_MS, refillMs } from './bucket-math.js'

/** What one request needs from one bucket. */
export interface BucketDemand {
  /** The shared bucket's name: `tenant:<id>:requests`, `key:<id>:messages`, ... */
  readonly bucket: string
  /** The limit, per second. */
  readonly rate: number
  /** Tokens this request takes: 1 for a request, the pushed messages for a messages bucket. */
  readonly cost: number
  /** Which limit, as the 429 body names it: `tenant requests-per-second`, ... */
  readonly limit: string
}

/** The rate limiter's answer. */
export type RateVerdict =
  | { readonly ok: true }
  | {
      readonly ok: false
      readonly demand: BucketDemand
      readonly capacity: number
      /** When the request could be admitted, at the earliest. */
      readonly retryAfterMs: number
      /** The request alone is larger than the bucket's capacity: smaller batches are needed. */
      readonly tooLarge: boolean
    }

interface LocalTokens {
  readonly rate: number
  readonly capacity: number
  /** Granted by the shared bucket and not spent yet. */
  tokens: number
  /** After this, unspent tokens are dropped. */
  expiresAt: number
  /** The shared bucket was short: no trip to the database before this. */
  askAfter: number
  fetching?: Promise<void>
}

const MAX_LOCAL_BUCKETS = 100_000
const WARN_EVERY_MS = 10_000

export class RateLimiter {
  private readonly local = new Map<string, LocalTokens>()
  private readonly db: pg.Pool
  private readonly burstMs: number
  private readonly log: Logger
  private readonly now: () => number
  private lastWarnAt = 0

  constructor(db: pg.Pool, burstMs: number, log: Logger, now: () => number = Date.now) {
    this.db = db
    this.burstMs = burstMs
    this.log = log
    this.now = now
  }

  /** Admits the request when every bucket has its cost, spending from all of them; else spends nothing. */
  async admit(demands: readonly BucketDemand[]): Promise<RateVerdict> {
    if (demands.length === 0) return { ok: true }
    const held = demands.map((demand) => this.tokensOf(demand))
    for (const [index, demand] of demands.entries()) {
      const capacity = held[index]!.capacity
      if (demand.cost > capacity) return { ok: false, demand, capacity, retryAfterMs: 1000, tooLarge: true }
    }
    if (!this.covered(demands, held)) {
      const now = this.now()
      const trips: Promise<void>[] = []
      for (const [index, demand] of demands.entries()) {
        const tokens = held[index]!
        if (tokens.tokens < demand.cost && now >= tokens.askAfter) trips.push(this.take(demand, tokens))
      }
      await Promise.all(trips)
    }
    if (this.covered(demands, held)) {
      for (const [index, demand] of demands.entries()) held[index]!.tokens -= demand.cost
      return { ok: true }
    }
    return this.refusal(demands, held)
  }

  /** The limits changed: tokens taken under the old ones are dropped. */
  reset(): void {
    this.local.clear()
  }

  private covered(demands: readonly BucketDemand[], held: readonly LocalTokens[]): boolean {
    const now = this.now()
    return demands.every((demand, index) => {
      const tokens = held[index]!
      if (now >= tokens.expiresAt) tokens.tokens = 0
      return tokens.tokens >= demand.cost
    })
  }

  private refusal(demands: readonly BucketDemand[], held: readonly LocalTokens[]): RateVerdict {
    const now = this.now()
    let worst: { demand: BucketDemand; capacity: number; waitMs: number } | undefined
    for (const [index, demand] of demands.entries()) {
      const tokens = held[index]!
      if (tokens.tokens >= demand.cost) continue
      const waitMs = Math.max(tokens.askAfter - now, refillMs(demand.cost - tokens.tokens, demand.rate))
      if (!worst || waitMs > worst.waitMs) worst = { demand, capacity: tokens.capacity, waitMs }
    }
    const chosen = worst!
    return { ok: false, demand: chosen.demand, capacity: chosen.capacity, retryAfterMs: chosen.waitMs, tooLarge: false }
  }

  private tokensOf(demand: BucketDemand): LocalTokens {
    let tokens = this.local.get(demand.bucket)
    if (!tokens || tokens.rate !== demand.rate) {
      if (this.local.size >= MAX_LOCAL_BUCKETS) this.local.delete(this.local.keys().next().value!)
      tokens = {
        rate: demand.rate,
        capacity: bucketCapacity(demand.rate, this.burstMs),
        tokens: 0,
        expiresAt: 0,
        askAfter: 0,
      }
      this.local.set(demand.bucket, tokens)
    }
    return tokens
  }

  /** One trip to the shared bucket per local bucket at a time; concurrent requests wait for the same trip. */
  private take(demand: BucketDemand, tokens: LocalTokens): Promise<void> {
    tokens.fetching ??= this.fetch(demand, tokens).finally(() => {
      tokens.fetching = undefined
    })
    return tokens.fetching
  }

  private async fetch(demand: BucketDemand, tokens: LocalTokens): Promise<void> {
    const want = chunkSize(demand.rate, tokens.capacity, demand.cost - tokens.tokens)
    try {
      const rows = await gatewayQuery<{ granted: number; remaining: number }>(this.db, 'limitTake', [
        demand.bucket,
        demand.rate,
        tokens.capacity,
        want,
      ])
      const granted = rows[0]?.granted ?? 0
      const now = this.now()
      tokens.tokens += granted
      tokens.expiresAt = now + LEASE_TTL_MS
      tokens.askAfter = granted < want ? now + refillMs(want - granted, demand.rate) : 0
    } catch (error) {
      // The database is unreachable: admit at this replica's own pace rather than refuse every tenant's traffic.
      // The replicas together may then admit up to their number times the limit until it answers again.
      const now = this.now()
      tokens.tokens += want
      tokens.expiresAt = now + LEASE_TTL_MS
      tokens.askAfter = now + refillMs(want, demand.rate)
      if (now - this.lastWarnAt >= WARN_EVERY_MS) {
        this.lastWarnAt = now
        this.log.warn({ err: error }, 'rate limits: shared buckets unreachable; limiting per replica')
      }
    }
  }
}
