/**
 * The brokers' view of a tenant, for the quotas only they can count (docs/gateway.md, "Quotas and rate limits"):
 * its queues, its partitions and the messages they hold. Asked of a broker with the tenant's header and kept for
 * PROXY_QUOTA_VIEW_TTL_MS; a request naming a queue or partition the view lacks asks again first. Names this replica
 * admitted are merged into every listing taken before their request was answered, so a listing taken while their
 * push was in flight cannot hide them: two requests at one replica never create past a quota together.
 */
import type { PushAmount } from './push-counters.js'
import type { Target } from './push-contents.js'

/** A GET to a broker as the tenant (`broker-get.ts`): the parsed JSON of a 200 answer, else it throws. */
export type BrokerGet = (tenantId: string, path: string) => Promise<unknown>

/** What the brokers hold for one tenant. */
export interface TenantView {
  readonly queues: Set<string>
  /** `queue \0 partition`; listed only when the tenant has a partitions quota. */
  readonly partitions: Set<string>
  readonly hasPartitionNames: boolean
  /** Messages stored over all its partitions (the brokers' live `total` counters). */
  readonly storedMessages: number
  /** The gateways' all-time push counters, read just before the listing. */
  readonly pushedBefore: PushAmount
  readonly takenAt: number
}

/** Rows of one page of GET /api/v1/resources/partitions (its maximum). */
const PARTITION_PAGE = 10_000

/** An admitted name whose request never reported an answer is dropped after this long (the longest long-poll). */
const ADMITTED_MAX_AGE_MS = 300_000

interface Admitted {
  readonly target: Target
  readonly at: number
  /** When the broker answered the request; until then every new listing may miss the name. */
  answeredAt?: number
}

export const partitionKey = (target: Target) => `${target.queue}\u0000${target.partition}`

interface QueueListing {
  queues?: { name?: unknown; messages?: { total?: unknown } }[]
}
interface PartitionListing {
  partitions?: { name?: unknown; queue?: unknown }[]
}

export class TenantViews {
  private readonly views = new Map<string, TenantView>()
  private readonly pending = new Map<string, { readonly view: Promise<TenantView> }>()
  private readonly admittedNames = new Map<string, Set<Admitted>>()
  private readonly get: BrokerGet
  private readonly totals: (tenantId: string) => Promise<PushAmount>
  private readonly ttlMs: number
  private readonly now: () => number

  constructor(
    get: BrokerGet,
    totals: (tenantId: string) => Promise<PushAmount>,
    ttlMs: number,
    now: () => number = Date.now,
  ) {
    this.get = get
    this.totals = totals
    this.ttlMs = ttlMs
    this.now = now
  }

  /**
   * The tenant's view, at most `ttlMs` old. `fresh` asks a broker, or joins a listing already on its way; `own` always
   * starts a listing (a decision under the creation lock needs one started after it took the lock).
   */
  async view(
    tenantId: string,
    options: { fresh: boolean; partitionNames: boolean; own?: boolean },
  ): Promise<TenantView> {
    const held = this.views.get(tenantId)
    const usable = held && (held.hasPartitionNames || !options.partitionNames)
    if (held && usable && !options.fresh && this.now() - held.takenAt < this.ttlMs) return held
    const pending = this.pending.get(tenantId)
    if (pending && !options.own) return pending.view
    const started = { view: this.fetch(tenantId, options.partitionNames) }
    this.pending.set(tenantId, started)
    void started.view
      .finally(() => {
        if (this.pending.get(tenantId) === started) this.pending.delete(tenantId)
      })
      .catch(() => undefined)
    return started.view
  }

  /**
   * Records the names an admitted request adds, so decisions here count them before a listing shows them; the
   * returned function is called when the broker answered.
   */
  admitted(tenantId: string, view: TenantView, targets: readonly Target[]): () => void {
    const entries: Admitted[] = []
    let names = this.admittedNames.get(tenantId)
    for (const target of targets) {
      const key = partitionKey(target)
      if (view.queues.has(target.queue) && (!view.hasPartitionNames || view.partitions.has(key))) continue
      view.queues.add(target.queue)
      if (view.hasPartitionNames) view.partitions.add(key)
      names ??= new Set()
      const entry: Admitted = { target, at: this.now() }
      names.add(entry)
      entries.push(entry)
    }
    if (names) this.admittedNames.set(tenantId, names)
    return () => {
      const at = this.now()
      for (const entry of entries) entry.answeredAt = at
    }
  }

  /** Forgets a tenant's view (a queue was deleted: the next decision lists again). */
  forget(tenantId: string): void {
    this.views.delete(tenantId)
  }

  private async fetch(tenantId: string, partitionNames: boolean): Promise<TenantView> {
    const takenAt = this.now()
    // Read before the listing: a push counted in between is in both, which errs on the side of refusing.
    const pushedBefore = await this.totals(tenantId)
    const listing = (await this.get(tenantId, '/api/v1/resources/queues')) as QueueListing
    const queues = new Set<string>()
    let storedMessages = 0
    for (const queue of listing.queues ?? []) {
      if (typeof queue.name === 'string') queues.add(queue.name)
      storedMessages += Number(queue.messages?.total ?? 0)
    }
    const partitions = new Set<string>()
    if (partitionNames) {
      for (let offset = 0; ; offset += PARTITION_PAGE) {
        const page = (await this.get(
          tenantId,
          `/api/v1/resources/partitions?limit=${PARTITION_PAGE}&offset=${offset}`,
        )) as PartitionListing
        const rows = page.partitions ?? []
        for (const row of rows) {
          if (typeof row.queue === 'string' && typeof row.name === 'string') {
            partitions.add(partitionKey({ queue: row.queue, partition: row.name }))
          }
        }
        if (rows.length < PARTITION_PAGE) break
      }
    }
    const view: TenantView = {
      queues,
      partitions,
      hasPartitionNames: partitionNames,
      storedMessages,
      pushedBefore,
      takenAt,
    }
    this.mergeAdmitted(tenantId, view)
    this.views.set(tenantId, view)
    return view
  }

  /** Adds the names of requests answered after the listing started (it may have missed them); drops the others. */
  private mergeAdmitted(tenantId: string, view: TenantView): void {
    const names = this.admittedNames.get(tenantId)
    if (!names) return
    for (const entry of names) {
      const answered = entry.answeredAt !== undefined && entry.answeredAt < view.takenAt
      if (answered || view.takenAt - entry.at > ADMITTED_MAX_AGE_MS) {
        names.delete(entry)
        continue
      }
      view.queues.add(entry.target.queue)
      if (view.hasPartitionNames) view.partitions.add(partitionKey(entry.target))
    }
    if (names.size === 0) this.admittedNames.delete(tenantId)
  }
}
