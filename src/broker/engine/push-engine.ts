/**
 * The push path: validated items -> group commit -> one queen.push_batch() call per batch -> per-item
 * outcomes -> wake-ups (docs/semantics.md, "Push").
 *
 * Isolation: requests batched together share one statement. Validation at the edge keeps bad input out,
 * so a batch fails only on a database problem; a deadlock or serialization failure is retried in place,
 * an outage is reported to every request (the route spools or answers 503), and any other failure of a
 * multi-request batch is retried request by request so that one request's problem never fails another.
 */
import type pg from 'pg'
import { newUuidV7 } from '../ids.js'
import { runQuery } from '../db/run-query.js'
import { retryOnConflict } from '../../platform/postgres/retry.js'
import { classifyPgError, DatabaseUnavailableError, describeDbFailure } from '../../platform/postgres/pg-errors.js'
import type { PushItem } from './push-item.js'
import type { PushEncryption } from './push-encryption.js'
import { MicroBatcher } from './micro-batcher.js'
import { PushBatchParams } from './push-batch-params.js'
import type { QueueRegistry } from './queue-registry.js'
import type { BrokerEvents } from '../observe/broker-events.js'
import type { SpoolRecord } from '../spool/record-format.js'

/** The outcome of one item, in request order. */
export type PushOutcome =
  | {
      status: 'queued'
      queue: string
      partition: string
      transactionId: string
      traceId: string | null
      messageId: string
      partitionId: string
    }
  | {
      status: 'duplicate'
      queue: string
      partition: string
      transactionId: string
      traceId: string | null
      messageId: string
      partitionId: string
    }
  | { status: 'buffered'; queue: string; partition: string; transactionId: string; traceId: string | null }
  | {
      status: 'failed'
      queue: string
      partition: string
      transactionId: string
      traceId: string | null
      error: string
      /** True when nothing could store it (PostgreSQL unreachable and no spool): a retry is correct. */
      unavailable?: boolean
    }

interface PushRequest {
  tenant: string
  items: PushItem[]
}

interface PushRow {
  idx: number
  status: 'queued' | 'duplicate' | 'failed'
  message_id: string | null
  partition_id: string | null
  error: string | null
}

/**
 * Calls `visit` once per (queue, partition) of `entries`, in first-seen order. A stored batch wakes each
 * partition once: a wake per message cost a push of 100 a hundred waiter scans and hint objects (6.5 % of the
 * broker's allocations in the push-of-100 bench).
 */
export function forEachPartitionOnce(
  entries: readonly { queue: string; partition: string }[],
  visit: (queue: string, partition: string) => void,
): void {
  const seen = new Map<string, Set<string>>()
  for (const { queue, partition } of entries) {
    let partitions = seen.get(queue)
    if (partitions === undefined) {
      partitions = new Set()
      seen.set(queue, partitions)
    }
    if (partitions.has(partition)) continue
    partitions.add(partition)
    visit(queue, partition)
  }
}

/** Something that wants to hear about stored messages (parked pops). */
export interface PushListener {
  messagesStored(tenant: string, queue: string, partition: string): void
}

/** Engine settings; `encryption` decides and applies payload encryption per item. */
export interface PushEngineOptions {
  lanes: number
  maxBatchItems: number
  encryption: PushEncryption
}

/** Pushes messages with group commit. */
export class PushEngine {
  private readonly batchers = new Map<string, MicroBatcher<PushRequest, PushOutcome[]>>()

  private readonly pool: pg.Pool
  private readonly registry: QueueRegistry
  private readonly listener: PushListener
  private readonly options: PushEngineOptions
  private readonly events: BrokerEvents

  constructor(
    pool: pg.Pool,
    registry: QueueRegistry,
    listener: PushListener,
    options: PushEngineOptions,
    events: BrokerEvents,
  ) {
    this.pool = pool
    this.registry = registry
    this.listener = listener
    this.options = options
    this.events = events
  }

  /** Reports outcomes to observers, one event per (queue, outcome). */
  reportOutcomes(
    tenant: string,
    outcomes: { queue: string; status: 'queued' | 'duplicate' | 'failed' | 'buffered' }[],
  ): void {
    const counts = new Map<
      string,
      { queue: string; status: 'queued' | 'duplicate' | 'failed' | 'buffered'; count: number }
    >()
    for (const outcome of outcomes) {
      const key = `${outcome.queue}\u0000${outcome.status}`
      const entry = counts.get(key) ?? { queue: outcome.queue, status: outcome.status, count: 0 }
      entry.count += 1
      counts.set(key, entry)
    }
    for (const entry of counts.values()) this.events.emit('pushed', tenant, entry.queue, entry.status, entry.count)
  }

  /** Batching counters summed over tenants: requests handled and batches (round trips) they took. */
  get batching(): { requests: number; batches: number } {
    let requests = 0
    let batches = 0
    for (const batcher of this.batchers.values()) {
      requests += batcher.submissionsRun
      batches += batcher.batchesRun
    }
    return { requests, batches }
  }

  /** Stores the items of one request; resolves with one outcome per item, in order. */
  async push(tenant: string, items: PushItem[]): Promise<PushOutcome[]> {
    if (items.length === 0) return []
    const outcomes = await this.encryptAndStore(tenant, items, (ready) => this.submitByLane(tenant, ready))
    forEachPartitionOnce(
      outcomes.filter((outcome) => outcome.status === 'queued'),
      (queue, partition) => this.listener.messagesStored(tenant, queue, partition),
    )
    this.reportOutcomes(tenant, outcomes)
    return outcomes
  }

  /**
   * Encrypts what must be encrypted (docs/semantics.md, "Encryption on push"), stores the items through `submit`, and
   * redoes once the items the push statement refused with `encryption_mismatch` (a stale cached setting): the queue is
   * read again and the items prepared again from their original payloads. `db`: the caller's transaction.
   */
  private async encryptAndStore(
    tenant: string,
    items: PushItem[],
    submit: (ready: PushItem[]) => Promise<PushOutcome[]>,
    db?: pg.ClientBase,
  ): Promise<PushOutcome[]> {
    const outcomes = new Array<PushOutcome>(items.length)
    const all = items.map((_item, index) => index)
    await this.prepareAndSubmit(tenant, items, all, outcomes, submit, db)
    const retry = all.filter((index) => {
      const outcome = outcomes[index]!
      return outcome.status === 'failed' && outcome.error === 'encryption_mismatch'
    })
    if (retry.length === 0) return outcomes
    for (const queue of new Set(retry.map((index) => items[index]!.queue))) {
      if (db) this.registry.invalidate(tenant, queue)
      // Not read again: the item keeps its mismatch and is answered "retry" below.
      else await this.registry.load(tenant, queue).catch(() => undefined)
    }
    await this.prepareAndSubmit(tenant, items, retry, outcomes, submit, db)
    for (const index of retry) {
      const outcome = outcomes[index]!
      if (outcome.status === 'failed' && outcome.error === 'encryption_mismatch') {
        outcomes[index] = { ...outcome, error: 'queue encryption setting changed during the push; retry' }
      }
    }
    return outcomes
  }

  private async prepareAndSubmit(
    tenant: string,
    items: PushItem[],
    indexes: number[],
    outcomes: PushOutcome[],
    submit: (ready: PushItem[]) => Promise<PushOutcome[]>,
    db: pg.ClientBase | undefined,
  ): Promise<void> {
    const prepared = await this.options.encryption.prepare(
      tenant,
      indexes.map((index) => items[index]!),
      db,
    )
    const ready: PushItem[] = []
    const origin: number[] = []
    prepared.forEach((entry, position) => {
      const index = indexes[position]!
      if ('error' in entry) {
        outcomes[index] = failed(items[index]!, entry.error)
      } else {
        ready.push(entry.item)
        origin.push(index)
      }
    })
    if (ready.length === 0) return
    const results = await submit(ready)
    origin.forEach((index, position) => {
      outcomes[index] = results[position]!
    })
  }

  /**
   * Stores spooled records (replay mode: original transaction ids and acceptance times, caps not applied).
   * Throws on any failure, including a per-item refusal, so the replayer isolates and quarantines it. Each
   * payload is stored in the form its queue's current setting requires (PushEncryption.forReplay):
   * ciphertext as spooled, never encrypted twice, and never clear text for an encrypted queue.
   */
  async replay(tenant: string, records: SpoolRecord[]): Promise<void> {
    const encryption = this.options.encryption
    const queues = [...new Set(records.map((record) => record.queue))]
    const rows = await retryOnConflict(async () => {
      const settings = await runQuery<{ name: string; encryption_enabled: boolean }>(
        this.pool,
        'queueEncryptionSettings',
        [tenant, queues],
      )
      const encrypted = new Set(settings.filter((row) => row.encryption_enabled).map((row) => row.name))
      const batch = new PushBatchParams(tenant, true)
      records.forEach((record) => {
        const stored = encryption.forReplay(tenant, record, encrypted.has(record.queue))
        batch.add({
          queue: record.queue,
          partition: record.partition,
          id: newUuidV7(),
          transactionId: record.transactionId,
          generated: false,
          traceId: record.traceId,
          producerSub: record.producerSub,
          payload: stored.payload,
          encrypted: stored.encrypted,
          acceptedAt: new Date(record.acceptedAt).toISOString(),
        })
      })
      return runQuery<PushRow>(this.pool, 'messagePush', batch.values())
    })
    const refused = rows.find((row) => row.status === 'failed')
    if (refused) throw new Error(`replay refused: ${refused.error ?? 'unknown reason'}`)
    const stored = rows.flatMap((row) => (row.status === 'queued' && records[row.idx] ? [records[row.idx]!] : []))
    forEachPartitionOnce(stored, (queue, partition) => this.listener.messagesStored(tenant, queue, partition))
  }

  /**
   * Lanes: every partition belongs to one lane (a hash of queue and partition), and each lane runs one batch
   * at a time. Batches of different lanes never touch the same partition rows, so they never wait for each
   * other's locks and run truly in parallel, while one lane's batches keep a partition's pushes in order.
   * A request spanning lanes is split, and its outcomes are put back in request order. A queue with a cap
   * (maxSize, maxPartitions) has one lane for all its partitions: the cap is decided in arrival order
   * within one statement (docs/semantics.md, "Auto-creation"), and its statements lock the queue row anyway.
   *
   * Small requests (fewer than SMALL_REQUEST_ITEMS items, no capped queue) go whole to one extra lane of
   * their own, whatever their partitions: split over the partition lanes, concurrent single pushes made
   * half-size batches, and a statement's fixed cost is most of a small batch's (bench/README.md has the
   * measurement that keeps it). A small batch may then meet a large one on the same partition and wait for
   * its commit; that only orders two concurrent requests, which have no order between them anyway.
   */
  private async submitByLane(tenant: string, items: PushItem[]): Promise<PushOutcome[]> {
    const lanes = this.options.lanes
    if (lanes <= 1) return this.batcher(tenant, 0).submit({ tenant, items })
    const groups = new Map<number, number[]>()
    const capped = new Map<string, boolean>()
    const isCapped = (queue: string) => {
      let known = capped.get(queue)
      if (known === undefined) {
        const record = this.registry.peek(tenant, queue)
        known = record !== undefined && (record.maxSize > 0 || record.maxPartitions > 0)
        capped.set(queue, known)
      }
      return known
    }
    if (items.length < SMALL_REQUEST_ITEMS && !items.some((item) => isCapped(item.queue))) {
      return this.batcher(tenant, lanes).submit({ tenant, items })
    }
    items.forEach((item, index) => {
      const lane = laneOf(item.queue, isCapped(item.queue) ? '' : item.partition, lanes)
      const group = groups.get(lane)
      if (group) group.push(index)
      else groups.set(lane, [index])
    })
    if (groups.size === 1) {
      const [lane] = groups.keys()
      return this.batcher(tenant, lane!).submit({ tenant, items })
    }
    const outcomes = new Array<PushOutcome>(items.length)
    await Promise.all(
      [...groups].map(async ([lane, indexes]) => {
        const results = await this.batcher(tenant, lane).submit({
          tenant,
          items: indexes.map((index) => items[index]!),
        })
        indexes.forEach((index, position) => {
          outcomes[index] = results[position]!
        })
      }),
    )
    return outcomes
  }

  private batcher(tenant: string, lane: number): MicroBatcher<PushRequest, PushOutcome[]> {
    const key = `${tenant}\u0000${lane}`
    let batcher = this.batchers.get(key)
    if (!batcher) {
      batcher = new MicroBatcher((requests) => this.runBatch(requests), {
        maxInFlight: 1,
        maxWeight: this.options.maxBatchItems,
        weight: (request) => request.items.length,
      })
      this.batchers.set(key, batcher)
    }
    return batcher
  }

  private async runBatch(requests: PushRequest[]): Promise<PushOutcome[][]> {
    try {
      return await this.store(requests)
    } catch (error) {
      if (classifyPgError(error) === 'unavailable') throw new DatabaseUnavailableError(error)
      if (requests.length === 1) {
        const message = describeDbFailure(error)
        return [requests[0]!.items.map((item) => failed(item, message))]
      }
      // Isolation: one request's failure must not fail the others.
      return Promise.all(requests.map(async (request) => (await this.runBatch([request]))[0]!))
    }
  }

  /**
   * Stores items inside a caller's transaction (POST /api/v1/transaction), without batching; the caller
   * wakes waiters after its commit.
   */
  async pushInTransaction(client: pg.ClientBase, tenant: string, items: PushItem[]): Promise<PushOutcome[]> {
    return this.encryptAndStore(
      tenant,
      items,
      async (ready) => (await this.store([{ tenant, items: ready }], client))[0]!,
      client,
    )
  }

  private async store(requests: PushRequest[], db: pg.Pool | pg.ClientBase = this.pool): Promise<PushOutcome[][]> {
    const tenant = requests[0]!.tenant
    const outcomes: PushOutcome[][] = requests.map(() => [])
    const batch = new PushBatchParams(tenant, false)
    requests.forEach((request) => {
      request.items.forEach((item) => {
        batch.add({
          queue: item.queue,
          partition: item.partition,
          id: newUuidV7(),
          transactionId: item.transactionId,
          generated: item.generatedTransactionId,
          traceId: item.traceId,
          producerSub: item.producerSub,
          payload: item.payload,
          encrypted: item.encrypted === true,
        })
      })
    })
    if (batch.size > 0) {
      const statement = () => runQuery<PushRow>(db, 'messagePush', batch.values())
      // Inside a caller's transaction a failed statement aborts it, so only the caller can retry.
      const rows = db === this.pool ? await retryOnConflict(statement) : await statement()
      // Each row names its item by idx, the item's index in the batch.
      const byIndex: (PushRow | undefined)[] = []
      rows.forEach((row) => {
        byIndex[row.idx] = row
      })
      let wireIndex = 0
      requests.forEach((request, requestIndex) => {
        request.items.forEach((item, itemIndex) => {
          outcomes[requestIndex]![itemIndex] = toOutcome(item, byIndex[wireIndex++])
        })
      })
    }
    return outcomes
  }
}

/** Requests with fewer items than this share the small-request lane (see submitByLane). */
export const SMALL_REQUEST_ITEMS = 10

/** The lane of a partition: FNV-1a of queue and partition name, modulo the lane count. */
export function laneOf(queue: string, partition: string, lanes: number): number {
  let hash = 0x811c9dc5
  const key = `${queue}\u0000${partition}`
  for (let index = 0; index < key.length; index++) {
    hash ^= key.charCodeAt(index)
    hash = Math.imul(hash, 0x01000193)
  }
  return (hash >>> 0) % lanes
}

function failed(item: PushItem, error: string): PushOutcome {
  return {
    status: 'failed',
    queue: item.queue,
    partition: item.partition,
    transactionId: item.transactionId,
    traceId: item.traceId,
    error,
  }
}

function toOutcome(item: PushItem, row: PushRow | undefined): PushOutcome {
  if (!row) return failed(item, `queue '${item.queue}' was deleted during the push; retry`)
  if (row.status === 'failed' || !row.message_id || !row.partition_id) {
    if (row.error === 'encryption_mismatch') return failed(item, 'encryption_mismatch')
    return failed(item, row.error ?? 'push failed')
  }
  const base = {
    queue: item.queue,
    partition: item.partition,
    transactionId: item.transactionId,
    traceId: item.traceId,
    messageId: row.message_id,
    partitionId: row.partition_id,
  }
  return row.status === 'duplicate' ? { status: 'duplicate', ...base } : { status: 'queued', ...base }
}
