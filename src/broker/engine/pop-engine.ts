/**
 * The pop path (docs/semantics.md, "Pop", docs/http-api.md, "Pop answer" and "Pop from a queue"): resolves the queue
 * and partition, runs queen.pop_messages(), and parks long-polls in {@link PopWaiters} when nothing is deliverable or
 * pop-maintenance is on (docs/semantics.md, "Maintenance mode"). It answers what it found ({@link PopOutcome}); the
 * HTTP layer renders the envelope.
 */
import type pg from 'pg'
import { newUuidV7 } from '../ids.js'
import { runQuery, runQueryRawJson } from '../db/run-query.js'
import { describeDbFailure } from '../../platform/postgres/pg-errors.js'
import { NAMESPACE_WAIT_PREFIX, type AttemptResult, type PopWaiters } from './pop-waiters.js'
import type { QueueRegistry } from './queue-registry.js'
import type { BrokerEvents } from '../observe/broker-events.js'
import { isKeyUnavailableError, keyUnavailableError, type PopDecryption } from '../crypto/pop-decryption.js'

/** A validated pop request. */
export interface PopRequest {
  tenant: string
  queue: string
  /** Partition name for the specific-partition route, else null. */
  partition: string | null
  group: string
  batch: number
  maxPartitions: number
  wait: boolean
  timeoutMs: number
  autoAck: boolean
  /** 'all' | 'new' | 'from' (named groups, first contact only). */
  subscriptionMode: 'all' | 'new' | 'from'
  subscriptionFrom: Date | null
  /** Namespace/task pop (GET /api/v1/pop): any queue with these tags; `queue` is then ''. */
  filter?: { namespace?: string; task?: string }
}

interface PopTarget {
  queueId: string
  queue: string
  partitionId: string | null
}

/** What a pop found. `parkedMs` is the time it spent parked (excluded from request latency). */
export type PopOutcome = (
  | {
      kind: 'messages'
      messages: PoppedMessage[]
      queue: string
      partition: string | null
      partitionId: string | null
      /** The lease on the wire: '' for an autoAck pop. */
      leaseId: string
      group: string
      partitionsClaimed: number
      /** The lease to release when the answer cannot be delivered; absent for an autoAck pop. */
      heldLease?: string
    }
  /** Nothing deliverable by the deadline (or at once, without wait). */
  | { kind: 'empty' }
  /** Pop-maintenance is on. */
  | { kind: 'paused' }
  /** The window buffer holds the partition's messages back. */
  | { kind: 'windowBuffer'; partition: string | null; partitionId: string | null }
  /** No messages, with the reason (no_available_partition, partition_not_found, lease_held, a failure). */
  | { kind: 'refused'; error: string }
) & { parkedMs?: number }

/** What pops read of the maintenance flags. */
export interface PopMaintenance {
  readonly pop: boolean
}

/** One row of the pop statement. */
export interface PopRow {
  kind: 'message' | 'lease_held' | 'window_buffer' | 'more'
  partition_id: string | null
  partition_name: string | null
  message_id: string | null
  transaction_id: string | null
  trace_id: string | null
  payload: unknown
  is_encrypted: boolean | null
  producer_sub: string | null
  created_at: string | null
  retry_count: number | null
  /** Set by the engine: the queue the row was popped from. */
  queue?: string
}

/** A delivered message row; `payload` is its JSON text. */
export type PoppedMessage = PopRow & { queue: string }

type Attempt =
  | { kind: 'messages'; outcome: PopOutcome; more: boolean }
  | { kind: 'final'; outcome: PopOutcome }
  | { kind: 'nothing'; outcome: PopOutcome }

/** Runs pops and long-polls. */
export class PopEngine {
  private readonly pool: pg.Pool
  private readonly registry: QueueRegistry
  private readonly waiters: PopWaiters
  private readonly events: BrokerEvents
  private readonly decryption: PopDecryption | undefined
  private readonly maintenance: PopMaintenance
  /**
   * First attempts of long-polls that may run at once per wait key; newcomers beyond it park without one
   * (issue 22: 10,000 long-polls on one queue, each with its own attempt, overflowed the pool's wait queue
   * and were answered "database unavailable"). Half the pool: pushes and acks each keep at most a quarter
   * in flight (services.ts), so one hot key leaves room for its re-check round, other keys and the admin
   * routes; with the default 20 connections that is 10, so the 8 consumers of a drain still pop at once.
   */
  private readonly maxFirstAttempts: number

  constructor(
    pool: pg.Pool,
    registry: QueueRegistry,
    waiters: PopWaiters,
    events: BrokerEvents,
    maintenance: PopMaintenance,
    decryption?: PopDecryption,
  ) {
    this.pool = pool
    this.registry = registry
    this.waiters = waiters
    this.events = events
    this.maintenance = maintenance
    this.decryption = decryption
    this.maxFirstAttempts = Math.max(1, Math.floor((pool.options.max ?? DEFAULT_POOL_MAX) / 2))
  }

  /**
   * Answers a pop, waiting up to `timeoutMs` when `wait` is set and nothing is deliverable. `gone` aborts
   * when the client disconnected: a parked pop then leaves the line at once, so the next message goes to
   * a live waiter instead of a dead socket.
   */
  async pop(request: PopRequest, gone?: AbortSignal): Promise<PopOutcome> {
    const leaseId = newUuidV7()
    const paused = () => this.maintenance.pop
    if (paused() && !request.wait) return { kind: 'paused' }
    if (!request.wait || request.timeoutMs === 0) return (await this.attempt(request, leaseId)).outcome
    const key = {
      tenant: request.tenant,
      queue: waitQueueKey(request),
      partition: request.partition,
      group: request.group,
    }
    // Parked from here on unless its first attempt runs: then from when that attempt found nothing.
    let parkedAt = Date.now()
    const parked = (outcome: PopOutcome): PopOutcome => ({ ...outcome, parkedMs: Date.now() - parkedAt })
    // Parked through pop-maintenance, it answers 204 if that is still on at the end (docs/semantics.md, "Maintenance
    // mode").
    const ended = (): PopOutcome => parked(paused() ? { kind: 'paused' } : { kind: 'empty' })
    if (gone?.aborted) return ended()
    return new Promise<PopOutcome>((settle) => {
      // Called on abort only, once the pop is in line.
      const leave = () => cancel()
      const resolve = (outcome: PopOutcome) => {
        gone?.removeEventListener('abort', leave)
        settle(outcome)
      }
      const pop = {
        deadline: Date.now() + request.timeoutMs,
        attempt: async (first: boolean): Promise<AttemptResult> => {
          if (paused()) return 'empty'
          const next = await this.attempt(request, leaseId)
          if (next.kind === 'nothing') {
            if (first) parkedAt = Date.now()
            return 'empty'
          }
          resolve(first ? next.outcome : parked(next.outcome))
          if (next.kind !== 'messages') return 'failed'
          return next.more ? 'more' : 'delivered'
        },
        end: () => resolve(ended()),
      }
      // During pop-maintenance it parks without a look; the end of maintenance re-checks every key.
      const cancel = paused() ? this.waiters.park(key, pop) : this.waiters.enter(key, pop, this.maxFirstAttempts)
      gone?.addEventListener('abort', leave, { once: true })
    })
  }

  /** Releases a lease whose answer could not be delivered, without counting a failure. */
  async releaseLease(leaseId: string): Promise<void> {
    await runQuery(this.pool, 'leaseRelease', [leaseId])
  }

  private async targets(request: PopRequest): Promise<PopTarget[] | Attempt> {
    if (request.filter) {
      const rows = await runQuery<{ id: string; name: string }>(this.pool, 'queueListByNamespace', [
        request.tenant,
        request.filter.namespace ?? null,
        request.filter.task ?? null,
        request.group,
      ])
      return rows.map((row) => ({ queueId: row.id, queue: row.name, partitionId: null }))
    }
    const queue = await this.registry.get(request.tenant, request.queue)
    if (!queue) return { kind: 'nothing', outcome: NO_PARTITION }
    if (request.partition === null) return [{ queueId: queue.id, queue: queue.name, partitionId: null }]
    const found = await runQuery<{ id: string }>(this.pool, 'partitionGet', [queue.id, request.partition])
    if (!found[0]) {
      return { kind: 'nothing', outcome: { kind: 'refused', error: 'partition_not_found' } }
    }
    return [{ queueId: queue.id, queue: queue.name, partitionId: found[0].id }]
  }

  private async attempt(request: PopRequest, leaseId: string): Promise<Attempt> {
    let rows: PoppedMessage[] = []
    let more = false
    // A queue whose encrypted payloads this broker cannot decrypt: its pop statement failed and left nothing.
    let keyUnavailable: string | undefined
    try {
      const targets = await this.targets(request)
      if (!Array.isArray(targets)) return targets
      let batch = request.batch
      let partitions = request.partition === null ? request.maxPartitions : 1
      // Namespace/task pops visit queues by priority, then least recently served (docs/semantics.md, "Namespace and
      // task pops").
      for (const target of targets) {
        if (batch <= 0 || partitions <= 0) break
        let found: PopRow[]
        try {
          found = await runQueryRawJson<PopRow>(this.pool, 'messagePop', [
            target.queueId,
            target.partitionId,
            request.group,
            batch,
            partitions,
            leaseId,
            request.autoAck,
            request.subscriptionMode,
            request.subscriptionFrom,
            this.decryption?.keyId ?? null,
          ])
        } catch (error) {
          if (!isKeyUnavailableError(error)) throw error
          keyUnavailable ??= target.queue
          continue
        }
        const messages = found.filter((row) => row.kind === 'message')
        if (found.some((row) => row.kind === 'more')) more = true
        if (messages.length === 0 && found[0] && request.partition !== null) {
          rows.push({ ...found[0], queue: target.queue })
          break
        }
        for (const row of messages) {
          row.queue = target.queue
          rows.push(row as PoppedMessage)
        }
        batch -= messages.length
        partitions -= new Set(messages.map((row) => row.partition_id)).size
      }
      // Queues left unvisited (namespace pops) may hold messages for the next consumer.
      if (targets.length > 1) more = true
      if (this.decryption) {
        const opened = await this.decryption.open(request.tenant, request.group, rows)
        if ('keyUnavailable' in opened) {
          if (!request.autoAck) await this.releaseLease(leaseId)
          return { kind: 'final', outcome: { kind: 'refused', error: keyUnavailableError(opened.keyUnavailable) } }
        }
        rows = opened.rows
      }
    } catch (error) {
      // Data-plane rule: a database failure is a 200 with success:false, never a 5xx (docs/http-api.md, "Status codes
      // on the data plane").
      return { kind: 'final', outcome: { kind: 'refused', error: describeDbFailure(error) } }
    }

    const first = rows[0]
    if (!first && keyUnavailable !== undefined) {
      return { kind: 'final', outcome: { kind: 'refused', error: keyUnavailableError(keyUnavailable) } }
    }
    if (!first) return { kind: 'nothing', outcome: request.partition === null ? NO_PARTITION : { kind: 'empty' } }
    if (first.kind === 'lease_held') return { kind: 'nothing', outcome: { kind: 'refused', error: 'lease_held' } }
    if (first.kind === 'window_buffer') {
      return {
        kind: 'nothing',
        outcome: { kind: 'windowBuffer', partition: first.partition_name, partitionId: first.partition_id },
      }
    }

    this.reportDelivered(request.tenant, rows)
    const outcome: PopOutcome = {
      kind: 'messages',
      messages: rows,
      queue: first.queue,
      partition: first.partition_name,
      partitionId: first.partition_id,
      leaseId: request.autoAck ? '' : leaseId,
      group: request.group,
      partitionsClaimed: new Set(rows.map((row) => row.partition_id)).size,
      ...(request.autoAck ? {} : { heldLease: leaseId }),
    }
    return { kind: 'messages', outcome, more }
  }

  private reportDelivered(tenant: string, rows: PoppedMessage[]): void {
    const now = Date.now()
    const byQueue = new Map<string, number[]>()
    for (const row of rows) {
      const lags = byQueue.get(row.queue) ?? []
      lags.push(Math.max(0, now - Date.parse(row.created_at!)))
      byQueue.set(row.queue, lags)
    }
    for (const [queue, lags] of byQueue) this.events.emit('delivered', tenant, queue, lags.length, lags)
  }
}

/** The waiter key's queue: the queue name, or a namespace/task filter (woken by any push of the tenant). */
function waitQueueKey(request: PopRequest): string {
  return request.filter
    ? `${NAMESPACE_WAIT_PREFIX}${request.filter.namespace ?? ''}\u0000${request.filter.task ?? ''}`
    : request.queue
}

const NO_PARTITION: PopOutcome = { kind: 'refused', error: 'no_available_partition' }

/** pg's pool size when none is given. */
const DEFAULT_POOL_MAX = 10
