/**
 * The server side of the streaming SDK (docs/http-api.md, "Streams", docs/semantics.md, "Streams"): stream queries
 * registered by name and guarded by a config hash, state rows per (query, source partition), and the
 * cycle that applies sink pushes, the source ack and state changes in one PostgreSQL transaction, with the
 * rules of `/push` and `/ack`.
 *
 * A cycle is all or nothing: a failed push item, a failed ack or a database error rolls everything back
 * and the answer says why. Its locks follow the canonical order of schema 001 — the query row (shared),
 * sink partitions (the pushes), the source consumer row (the ack), then the state rows in key order — and
 * a deadlock or serialization failure reruns the whole transaction in place.
 *
 * `release_lease: false`: queen.ack_messages releases a lease as soon as every message delivered under it
 * has an outcome. The cycle captures the live lease of the source (partition, group) before its ack and,
 * when the ack released it, puts the same lease back (same id, expiry and range) before commit, so the
 * partition stays held for the group until the lease expires, is extended, or a later cycle with
 * `release_lease: true` releases it (stream-lease-restore.sql). A cycle with `release_lease: true` whose
 * ack settled nothing new (a resend) releases the named lease when nothing under it is open, so a kept
 * lease can be given up without waiting for its expiry (stream-lease-release-idle.sql).
 *
 * `ack.count`: the streams SDK names the last message of its batch and the batch's size; the ack covers
 * the `count` messages ending at that one (stream-ack-run.sql), each acked with the ack's status, lease id
 * and error under the `/ack` rules.
 */
import type pg from 'pg'
import { inTransaction } from '../../platform/postgres/pool.js'
import { executeQuery, runQuery } from '../db/run-query.js'
import { retryOnConflict } from '../../platform/postgres/retry.js'
import type { AckEngine, AckItem, AckOutcome } from './ack-engine.js'
import type { PushEngine, PushOutcome } from './push-engine.js'
import type { PushItem } from './push-item.js'
import type { QueueRegistry } from './queue-registry.js'
import type { TransactionGuards } from './transaction-engine.js'

/** One state change of a cycle. */
export type StreamStateOp = { type: 'upsert'; key: string; value: unknown } | { type: 'delete'; key: string }

/** A validated `POST /streams/v1/queries`. */
export interface StreamRegistration {
  name: string
  sourceQueue: string
  /** Null: the query writes to no queue. */
  sinkQueue: string | null
  configHash: string
  /** Discard the stored state and register with this hash. */
  reset: boolean
}

/** The outcome of a registration. */
export type StreamRegistrationAnswer =
  | { outcome: 'registered'; queryId: string; fresh: boolean; reset: boolean }
  | { outcome: 'hash_mismatch'; queryId: string; error: string }

/** The source ack of a cycle: an ack of the `count` messages ending at `item.transactionId`. */
export interface StreamCycleAck {
  item: AckItem
  /** Messages covered, from `item.transactionId` on in position order; at least 1. */
  count: number
}

/** A validated `POST /streams/v1/cycle`. */
export interface StreamCycleRequest {
  queryId: string
  /** The source partition; state rows are keyed by it. */
  partitionId: string
  stateOps: StreamStateOp[]
  pushItems: PushItem[]
  ack: StreamCycleAck | null
  /** False: the source lease stays held after the ack. Default true. */
  releaseLease: boolean
}

/** What a cycle did (before wire naming); on failure nothing of it took effect. */
export interface StreamCycleAnswer {
  success: boolean
  error?: string
  /** The query's source queue, null when the query is unknown. */
  queueName: string | null
  stateOpsApplied: number
  pushResults: PushOutcome[]
  ackResult: { count: number; leaseReleased: boolean; dlq: boolean } | null
}

/** A validated `POST /streams/v1/state/get`. */
export interface StreamStateQuery {
  queryId: string
  partitionId: string
  /** Null: every key. */
  keys: string[] | null
  keyPrefix: string | null
  /** Epoch ms: keeps rows whose `value.windowEnd` is a number at or before it; null: no filter. */
  ripeAtOrBefore: number | null
}

/** One state row on the wire. */
export interface StreamStateRow {
  key: string
  value: unknown
  /** PostgreSQL JSON form with offset, e.g. `2026-05-06T10:01:42.123456+00:00`. */
  updated_at: string
}

/** The answer of a state read. */
export type StreamStateAnswer = { success: true; rows: StreamStateRow[] } | { success: false; error: string }

/** What the streams engine runs on. */
export interface StreamsEngineDeps {
  pool: pg.Pool
  push: PushEngine
  ack: AckEngine
  registry: QueueRegistry
  /** Wakes parked pops of a (queue, partition) here and on every replica. */
  wake: (tenant: string, queue: string, partition: string) => void
  guards?: TransactionGuards
}

/** A logical failure of a cycle: the transaction rolls back and the answer carries the message. */
class CycleFailure extends Error {
  /** A sink push met a stale cached encryption setting: refresh the cache so the client's retry works. */
  readonly staleQueueCache: boolean

  constructor(message: string, staleQueueCache = false) {
    super(message)
    this.staleQueueCache = staleQueueCache
  }
}

interface QueryRow {
  id: string
  name: string
  source_queue: string
  sink_queue: string | null
}

interface CapturedLease {
  lease_id: string
  lease_expires_at: string
  lease_to: number
}

interface Wake {
  queue: string
  partition: string
}

interface CycleEffects {
  queueName: string
  pushOutcomes: PushOutcome[]
  ackItems: AckItem[]
  ackOutcomes: AckOutcome[]
  ackResult: StreamCycleAnswer['ackResult']
  wakes: Wake[]
}

const ENCRYPTION_MISMATCH = 'encryption_mismatch'

/** Registers stream queries, runs cycles and reads state. */
export class StreamsEngine {
  private readonly deps: StreamsEngineDeps

  constructor(deps: StreamsEngineDeps) {
    this.deps = deps
  }

  /**
   * Registers (or re-registers) a query by name. A new name answers `fresh: true`; the same hash updates
   * the queues; a different hash is refused unless `reset`, which deletes the query's state and keeps its
   * id. Throws on database failures.
   */
  async register(tenant: string, registration: StreamRegistration): Promise<StreamRegistrationAnswer> {
    const { name, sourceQueue, sinkQueue, configHash, reset } = registration
    return retryOnConflict(() =>
      inTransaction(this.deps.pool, async (client): Promise<StreamRegistrationAnswer> => {
        const inserted = await runQuery<{ id: string }>(client, 'streamQueryRegister', [
          tenant,
          name,
          sourceQueue,
          sinkQueue,
          configHash,
        ])
        if (inserted[0]) return { outcome: 'registered', queryId: inserted[0].id, fresh: true, reset: false }
        const [row] = await runQuery<{ id: string; config_hash: string }>(client, 'streamQueryLock', [tenant, name])
        if (!row) throw new Error(`stream query '${name}' vanished during its registration`)
        if (!reset && row.config_hash !== configHash) {
          return {
            outcome: 'hash_mismatch',
            queryId: row.id,
            error:
              `config_hash mismatch: stream query '${name}' is registered with config_hash '${row.config_hash}' ` +
              `but this registration has '${configHash}'. Pass reset:true to discard the stored state`,
          }
        }
        if (reset) await executeQuery(client, 'streamStateClear', [row.id])
        await executeQuery(client, 'streamQueryUpdate', [row.id, sourceQueue, sinkQueue, configHash])
        return { outcome: 'registered', queryId: row.id, fresh: false, reset }
      }),
    )
  }

  /**
   * Runs one cycle atomically. Logical failures (unknown query, a refused push item, a refused ack) are
   * answered with `success: false`; database failures are thrown after the rollback.
   */
  async cycle(tenant: string, request: StreamCycleRequest): Promise<StreamCycleAnswer> {
    const refusal = this.refusal(tenant, request.pushItems)
    if (refusal) return failedAnswer(refusal, null)
    let queueName: string | null = null
    try {
      const effects = await retryOnConflict(() =>
        inTransaction(this.deps.pool, async (client) => {
          const [query] = await runQuery<QueryRow>(client, 'streamQueryLockShared', [request.queryId, tenant])
          if (!query) throw new CycleFailure(`stream query ${request.queryId} not found`)
          queueName = query.source_queue
          return this.apply(client, tenant, query, request)
        }),
      )
      this.afterCommit(tenant, effects)
      return {
        success: true,
        queueName: effects.queueName,
        stateOpsApplied: request.stateOps.length,
        pushResults: effects.pushOutcomes,
        ackResult: effects.ackResult,
      }
    } catch (error) {
      if (!(error instanceof CycleFailure)) throw error
      if (error.staleQueueCache) await this.refreshQueues(tenant, request.pushItems)
      return failedAnswer(error.message, queueName)
    }
  }

  /** Reads state rows of one (query, partition), sorted by key. Throws on database failures. */
  async getState(tenant: string, query: StreamStateQuery): Promise<StreamStateAnswer> {
    const [known] = await runQuery<QueryRow>(this.deps.pool, 'streamQueryGet', [query.queryId, tenant])
    if (!known) return { success: false, error: `stream query ${query.queryId} not found` }
    const rows = await runQuery<StreamStateRow>(this.deps.pool, 'streamStateGet', [
      query.queryId,
      query.partitionId,
      query.keys,
      query.keyPrefix,
      query.ripeAtOrBefore === null ? null : String(query.ripeAtOrBefore),
    ])
    return { success: true, rows }
  }

  /** Same refusals as transactions: sink pushes never overtake push-maintenance or the spool. */
  private refusal(tenant: string, items: PushItem[]): string | undefined {
    const guards = this.deps.guards
    if (!guards || items.length === 0) return undefined
    if (guards.pushMaintenance()) return 'push maintenance mode is on: stream sink pushes are paused'
    const waiting = items.find((item) => guards.partitionHasSpooled(tenant, item.queue, item.partition))
    if (waiting) return `partition ${waiting.queue}/${waiting.partition} has spooled messages awaiting replay; retry`
    return undefined
  }

  private async apply(
    client: pg.PoolClient,
    tenant: string,
    query: QueryRow,
    request: StreamCycleRequest,
  ): Promise<CycleEffects> {
    const wakes: Wake[] = []
    const pushOutcomes =
      request.pushItems.length === 0 ? [] : await this.deps.push.pushInTransaction(client, tenant, request.pushItems)
    pushOutcomes.forEach((outcome, index) => {
      if (outcome.status === 'failed') {
        if (outcome.error === ENCRYPTION_MISMATCH) {
          throw new CycleFailure(
            `push_items[${index}] failed: queue encryption setting changed during the push; retry`,
            true,
          )
        }
        throw new CycleFailure(`push_items[${index}] failed: ${outcome.error}`)
      }
      if (outcome.status === 'buffered') throw new CycleFailure(`push_items[${index}] failed: not stored`)
      if (outcome.status === 'queued') wakes.push({ queue: outcome.queue, partition: outcome.partition })
    })

    const acked = request.ack ? await this.applyAck(client, tenant, request.ack, request.releaseLease, wakes) : null

    await this.applyState(client, request)
    return {
      queueName: query.source_queue,
      pushOutcomes,
      ackItems: acked?.ackItems ?? [],
      ackOutcomes: acked?.ackOutcomes ?? [],
      ackResult: acked?.ackResult ?? null,
      wakes,
    }
  }

  private async applyAck(
    client: pg.PoolClient,
    tenant: string,
    ack: StreamCycleAck,
    releaseLease: boolean,
    wakes: Wake[],
  ): Promise<{
    ackItems: AckItem[]
    ackOutcomes: AckOutcome[]
    ackResult: NonNullable<StreamCycleAnswer['ackResult']>
  }> {
    const { item, count } = ack
    const [captured] = await runQuery<CapturedLease>(client, 'streamLeaseCapture', [item.partitionId, item.group])

    let ackItems = [item]
    if (count > 1) {
      const run = await runQuery<{ transaction_id: string }>(client, 'streamAckRun', [
        item.partitionId,
        item.group,
        item.transactionId,
        count,
      ])
      // An unknown transaction id falls through to the single ack, which answers "Message not found".
      if (run.length > 0) ackItems = run.map((row) => ({ ...item, transactionId: row.transaction_id }))
    }

    const ackOutcomes = await this.deps.ack.ackInTransaction(client, tenant, ackItems)
    const refused = ackOutcomes.find((outcome) => !outcome.success)
    if (refused) {
      const which = ackItems.length > 1 ? ` (transactionId '${refused.transactionId}')` : ''
      throw new CycleFailure(`ack failed${which}: ${refused.error ?? 'unknown error'}`)
    }

    let leaseReleased = ackOutcomes.some((outcome) => outcome.leaseReleased === true)
    if (!releaseLease && leaseReleased && captured) {
      const restored = await executeQuery(client, 'streamLeaseRestore', [
        item.partitionId,
        item.group,
        captured.lease_id,
        captured.lease_expires_at,
        captured.lease_to,
      ])
      if (restored > 0) leaseReleased = false
    } else if (releaseLease && !leaseReleased) {
      const leaseId = item.leaseId ?? captured?.lease_id
      if (leaseId) {
        const released = await runQuery(client, 'streamLeaseReleaseIdle', [item.partitionId, item.group, leaseId])
        leaseReleased = released.length > 0
      }
    }
    const named = ackOutcomes.find((outcome) => outcome.queueName && outcome.partitionName)
    if (leaseReleased && named?.queueName && named.partitionName) {
      wakes.push({ queue: named.queueName, partition: named.partitionName })
    }
    return {
      ackItems,
      ackOutcomes,
      ackResult: { count: ackItems.length, leaseReleased, dlq: ackOutcomes.some((outcome) => outcome.dlq) },
    }
  }

  /** Applies the state ops in order: the last op on a key decides its fate. */
  private async applyState(client: pg.PoolClient, request: StreamCycleRequest): Promise<void> {
    if (request.stateOps.length === 0) return
    const final = new Map<string, StreamStateOp>()
    for (const op of request.stateOps) {
      final.delete(op.key)
      final.set(op.key, op)
    }
    const upserts: { k: string; v: unknown }[] = []
    const deletes: string[] = []
    for (const op of final.values()) {
      if (op.type === 'upsert') upserts.push({ k: op.key, v: op.value })
      else deletes.push(op.key)
    }
    if (deletes.length > 0) {
      await executeQuery(client, 'streamStateDelete', [request.queryId, request.partitionId, deletes])
    }
    if (upserts.length > 0) {
      await executeQuery(client, 'streamStateUpsert', [request.queryId, request.partitionId, JSON.stringify(upserts)])
    }
  }

  private afterCommit(tenant: string, effects: CycleEffects): void {
    for (const wake of effects.wakes) this.deps.wake(tenant, wake.queue, wake.partition)
    if (effects.pushOutcomes.length > 0) this.deps.push.reportOutcomes(tenant, effects.pushOutcomes)
    if (effects.ackItems.length > 0) this.deps.ack.reportOutcomes(tenant, effects.ackItems, effects.ackOutcomes)
  }

  /** A stale cache let a sink push through with the wrong encryption state: refresh it for the retry. */
  private async refreshQueues(tenant: string, items: PushItem[]): Promise<void> {
    for (const queue of new Set(items.map((item) => item.queue))) {
      await this.deps.registry.load(tenant, queue).catch(() => undefined)
    }
  }
}

function failedAnswer(error: string, queueName: string | null): StreamCycleAnswer {
  return { success: false, error, queueName, stateOpsApplied: 0, pushResults: [], ackResult: null }
}
