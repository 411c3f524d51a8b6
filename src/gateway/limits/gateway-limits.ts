/**
 * Admission by quotas and rate limits (docs/gateway.md, "Quotas and rate limits"): called after a key's role check
 * and before the request is forwarded. Rate limits come first (no database trip while a replica holds tokens), then
 * the quotas a request that adds messages, queues or partitions must fit: the brokers' view for queues, partitions
 * and stored bytes, then the per-day counters. A refused request never reaches a broker, so nothing of it is stored.
 */
import type pg from 'pg'
import type { Logger } from 'pino'
import { BackgroundLoop } from '../../platform/jobs/background-loop.js'
import { gatewayExecute } from '../store/run.js'
import { CreationLocks } from './creation-lock.js'
import { countPush, msUntilUtcMidnight, pushedTotals, refundPush, utcDay } from './push-counters.js'
import { checkUnavailable, quotaRefusal, rateRefusal, UNWINDOWED_RETRY_MS, type LimitRefusal } from './limit-answers.js'
import { NO_KEY_LIMITS, type KeyLimits, type TenantLimits } from './limit-settings.js'
import { LimitsSnapshot } from './limits-snapshot.js'
import { mayAdd, NOTHING, requestContents, type RequestContents } from './push-contents.js'
import { RateLimiter, type BucketDemand } from './rate-limiter.js'
import { partitionKey, TenantViews, type BrokerGet, type TenantView } from './tenant-view.js'

/** Settings of {@link GatewayLimits} (the PROXY_* variables of the same names). */
export interface LimitSettings {
  /** PROXY_LIMITS_REFRESH_MS: how often each replica checks for changed limits. */
  readonly refreshMs: number
  /** PROXY_RATE_LIMIT_BURST_MS: a bucket holds this long's worth of its rate. */
  readonly burstMs: number
  /** PROXY_QUOTA_VIEW_TTL_MS: how long a broker listing of a tenant is reused. */
  readonly viewTtlMs: number
}

/** The verdict on one request. */
export type Admission = { readonly ok: true; settle(statusCode: number): void } | LimitRefusal

const SWEEP_INTERVAL_MS = 600_000

const ADMITTED: Admission = { ok: true, settle: () => undefined }

/** The brokers' view admits the request: the stored-bytes ceiling to count it against, and what to do once answered. */
interface ViewVerdict {
  readonly ok: true
  readonly storedCeiling: number | null
  readonly answered: () => void
}

function contentsNeeded(tenant: TenantLimits, key: KeyLimits): boolean {
  return (
    tenant.queues !== null ||
    tenant.partitions !== null ||
    tenant.messagesPerDay !== null ||
    tenant.payloadBytesPerDay !== null ||
    tenant.storedBytes !== null ||
    tenant.messagesPerSecond !== null ||
    key.messagesPerSecond !== null
  )
}

/** Who a request counts against: its tenant, and its API key when it came with one (a signed-in person has none). */
export interface LimitedCaller {
  readonly tenantId: string
  readonly keyId?: string
}

function demandsOf(identity: LimitedCaller, tenant: TenantLimits, key: KeyLimits, messages: number): BucketDemand[] {
  const demands: BucketDemand[] = []
  const add = (
    owner: 'key' | 'tenant',
    id: string,
    unit: 'requests' | 'messages',
    rate: number | null,
    cost: number,
  ) => {
    if (rate !== null && cost > 0) {
      demands.push({ bucket: `${owner}:${id}:${unit}`, rate, cost, limit: `${owner} ${unit}-per-second` })
    }
  }
  if (identity.keyId !== undefined) add('key', identity.keyId, 'requests', key.requestsPerSecond, 1)
  add('tenant', identity.tenantId, 'requests', tenant.requestsPerSecond, 1)
  if (identity.keyId !== undefined) add('key', identity.keyId, 'messages', key.messagesPerSecond, messages)
  add('tenant', identity.tenantId, 'messages', tenant.messagesPerSecond, messages)
  return demands
}

export class GatewayLimits {
  readonly snapshot: LimitsSnapshot
  readonly refresh: BackgroundLoop
  /** Drops idle shared buckets (limit-bucket-sweep.sql). */
  readonly sweep: BackgroundLoop
  private readonly rates: RateLimiter
  private readonly views: TenantViews
  private readonly locks: CreationLocks
  private readonly db: pg.Pool
  private readonly log: Logger

  /** `connection` opens the creation lock's own session (creation-lock.ts). */
  constructor(db: pg.Pool, connection: pg.ClientConfig, settings: LimitSettings, brokerGet: BrokerGet, log: Logger) {
    this.db = db
    this.log = log
    this.rates = new RateLimiter(db, settings.burstMs, log)
    this.snapshot = new LimitsSnapshot(db, () => this.rates.reset())
    this.views = new TenantViews(brokerGet, (tenantId) => pushedTotals(db, tenantId), settings.viewTtlMs)
    this.locks = new CreationLocks(connection, log)
    this.refresh = new BackgroundLoop('limits', settings.refreshMs, () => this.snapshot.refresh(), log)
    this.sweep = new BackgroundLoop(
      'rate-bucket-sweep',
      SWEEP_INTERVAL_MS,
      async () => {
        await gatewayExecute(db, 'limitBucketSweep')
      },
      log,
    )
  }

  /** Loads the limits, then keeps them fresh. */
  async start(): Promise<void> {
    await this.snapshot.refresh()
    this.refresh.start()
    this.sweep.start()
  }

  async close(): Promise<void> {
    await this.refresh.stop()
    await this.sweep.stop()
    await this.locks.close()
  }

  /** Whether the request may go on to a broker; never throws (a failed check is a 503 of its own). */
  async admit(identity: LimitedCaller, method: string, path: string, body: Buffer | undefined): Promise<Admission> {
    const tenant = this.snapshot.tenant(identity.tenantId)
    const key = identity.keyId === undefined ? NO_KEY_LIMITS : this.snapshot.key(identity.keyId)
    const adds = mayAdd(method, path) && contentsNeeded(tenant, key) ? requestContents(path, body) : NOTHING
    const rate = await this.rates.admit(demandsOf(identity, tenant, key, adds.messages))
    if (!rate.ok) return rateRefusal(rate)
    if (method === 'DELETE' && (path.startsWith('/api/v1/resources/queues/') || path.startsWith('/api/v1/queues/'))) {
      // A queue deleted or cleared frees quota: the next decision lists the tenant again.
      return { ok: true, settle: () => this.views.forget(identity.tenantId) }
    }
    if (adds.targets.length === 0) return ADMITTED
    try {
      return await this.checkQuotas(identity.tenantId, tenant, adds)
    } catch (error) {
      this.log.warn({ err: error, tenant: identity.tenantId }, 'quota check failed')
      return checkUnavailable(error)
    }
  }

  private async checkQuotas(tenantId: string, tenant: TenantLimits, adds: RequestContents): Promise<Admission> {
    const viewed = await this.checkView(tenantId, tenant, adds)
    if (!viewed.ok) return viewed
    const counted =
      adds.messages > 0 &&
      (tenant.messagesPerDay !== null || tenant.payloadBytesPerDay !== null || viewed.storedCeiling !== null)
    if (!counted) return { ok: true, settle: () => viewed.answered() }
    const now = Date.now()
    const day = utcDay(now)
    let refusal
    try {
      refusal = await countPush(this.db, tenantId, day, adds, { ...tenant, storedCeiling: viewed.storedCeiling })
    } catch (error) {
      viewed.answered()
      throw error
    }
    if (refusal) {
      viewed.answered()
      if (refusal.quota === 'stored-bytes') {
        const used = refusal.used - (viewed.storedCeiling! - tenant.storedBytes!)
        return quotaRefusal(
          'stored-bytes',
          { limit: tenant.storedBytes!, used, requested: adds.payloadBytes },
          UNWINDOWED_RETRY_MS,
        )
      }
      const limit = refusal.quota === 'messages-per-day' ? tenant.messagesPerDay! : tenant.payloadBytesPerDay!
      const requested = refusal.quota === 'messages-per-day' ? adds.messages : adds.payloadBytes
      return quotaRefusal(refusal.quota, { limit, used: refusal.used, requested }, msUntilUtcMidnight(now))
    }
    return {
      ok: true,
      settle: (statusCode) => {
        viewed.answered()
        // A 4xx from the broker stored nothing: the counters give the push back.
        if (statusCode < 400 || statusCode >= 500) return
        refundPush(this.db, tenantId, day, adds).catch((error: unknown) =>
          this.log.warn({ err: error, tenant: tenantId }, 'quota refund failed'),
        )
      },
    }
  }

  /**
   * Queues and partitions against the brokers' view, and the stored-bytes ceiling from it: the value the tenant's
   * all-time pushed bytes may reach, `quota - (stored messages x mean payload) + pushed bytes when listed`, checked
   * in the database with the per-day quotas. Records the names an admitted request adds.
   */
  private async checkView(
    tenantId: string,
    tenant: TenantLimits,
    adds: RequestContents,
  ): Promise<LimitRefusal | ViewVerdict> {
    const stored = tenant.storedBytes !== null && adds.messages > 0
    if (tenant.queues === null && tenant.partitions === null && !stored) {
      return { ok: true, storedCeiling: null, answered: () => undefined }
    }
    const partitionNames = tenant.partitions !== null
    const unseen = (view: TenantView) =>
      adds.targets.filter(
        (target) => !view.queues.has(target.queue) || (partitionNames && !view.partitions.has(partitionKey(target))),
      )
    let view = await this.views.view(tenantId, { fresh: false, partitionNames })
    const countsNames = tenant.queues !== null || tenant.partitions !== null
    if (!countsNames || unseen(view).length === 0) return this.decide(tenantId, tenant, adds, view, () => undefined)
    // It may create a queue or partition: one creator per tenant at a time over every replica, deciding on a
    // listing taken under the lock, holding it until the broker answered (creation-lock.ts).
    const release = await this.locks.acquire(tenantId)
    try {
      view = await this.views.view(tenantId, { fresh: true, partitionNames, own: true })
      const decided = this.decide(tenantId, tenant, adds, view, release)
      if (!decided.ok) release()
      return decided
    } catch (error) {
      release()
      throw error
    }
  }

  /** The decision on a view; nothing awaits here, so two requests at this replica never pass a quota together. */
  private decide(
    tenantId: string,
    tenant: TenantLimits,
    adds: RequestContents,
    view: TenantView,
    release: () => void,
  ): LimitRefusal | ViewVerdict {
    const fresh = adds.targets.filter(
      (target) =>
        !view.queues.has(target.queue) || (view.hasPartitionNames && !view.partitions.has(partitionKey(target))),
    )
    const newQueues = new Set(fresh.filter((target) => !view.queues.has(target.queue)).map((target) => target.queue))
    if (tenant.queues !== null && newQueues.size > 0 && view.queues.size + newQueues.size > tenant.queues) {
      return quotaRefusal(
        'queues',
        { limit: tenant.queues, used: view.queues.size, requested: newQueues.size },
        UNWINDOWED_RETRY_MS,
      )
    }
    if (tenant.partitions !== null && fresh.length > 0 && view.partitions.size + fresh.length > tenant.partitions) {
      return quotaRefusal(
        'partitions',
        { limit: tenant.partitions, used: view.partitions.size, requested: fresh.length },
        UNWINDOWED_RETRY_MS,
      )
    }
    let storedCeiling: number | null = null
    if (tenant.storedBytes !== null && adds.messages > 0) {
      const before = view.pushedBefore
      const mean = before.messages > 0 ? before.payloadBytes / before.messages : 0
      storedCeiling = Math.floor(tenant.storedBytes - view.storedMessages * mean + before.payloadBytes)
    }
    const answeredNames = this.views.admitted(tenantId, view, adds.targets)
    return {
      ok: true,
      storedCeiling,
      answered: () => {
        answeredNames()
        release()
      },
    }
  }
}
