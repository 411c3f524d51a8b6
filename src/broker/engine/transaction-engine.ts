/**
 * POST /api/v1/transaction (docs/semantics.md, "Transactions"): push and ack operations in one PostgreSQL transaction,
 * all or nothing, with the same rules as the standalone routes. Required leases are locked and checked
 * first. A push already inside the dedup window reports `duplicate`, and an ack of a settled message
 * `alreadyAcked`, so resending a transaction whose answer was lost applies nothing twice.
 */
import type pg from 'pg'
import { newUuidV7 } from '../ids.js'
import { inTransaction } from '../../platform/postgres/pool.js'
import { runQuery } from '../db/run-query.js'
import { describeDbFailure } from '../../platform/postgres/pg-errors.js'
import { retryOnConflict } from '../../platform/postgres/retry.js'
import type { AckEngine, AckItem, AckListener } from './ack-engine.js'
import type { PushEngine, PushListener } from './push-engine.js'
import type { PushItem } from './push-item.js'
import type { TransactionAnswer, TransactionOpResult } from '../../wire/index.js'

/**
 * What may refuse a transaction before it runs (docs/semantics.md, "Transactions": transactions never overtake the
 * spool).
 */
export interface TransactionGuards {
  pushMaintenance(): boolean
  partitionHasSpooled(tenant: string, queue: string, partition: string): boolean
}

/** One operation of a transaction, validated. */
export type TransactionOperation = { type: 'push'; items: PushItem[] } | { type: 'ack'; item: AckItem }

/** Per-op results and the answer on the wire (src/wire/transaction.ts). */
export type { TransactionAnswer, TransactionOpResult }

class TransactionFailure extends Error {
  readonly results: TransactionOpResult[]

  constructor(message: string, results: TransactionOpResult[]) {
    super(message)
    this.results = results
  }
}

interface Wake {
  kind: 'stored' | 'released'
  queue: string
  partition: string
}

/** Runs transactions. */
export class TransactionEngine {
  private readonly pool: pg.Pool
  private readonly push: PushEngine
  private readonly ack: AckEngine
  private readonly listener: PushListener & AckListener
  private readonly guards: TransactionGuards | undefined

  constructor(
    pool: pg.Pool,
    push: PushEngine,
    ack: AckEngine,
    listener: PushListener & AckListener,
    guards?: TransactionGuards,
  ) {
    this.guards = guards
    this.pool = pool
    this.push = push
    this.ack = ack
    this.listener = listener
  }

  /** Runs the operations atomically; a failure rolls everything back and is reported in the answer. */
  async run(tenant: string, operations: TransactionOperation[], requiredLeases: string[]): Promise<TransactionAnswer> {
    const transactionId = newUuidV7()
    const refusal = this.refusal(tenant, operations)
    if (refusal) return { transactionId, success: false, error: refusal, results: [] }
    try {
      const { results, wakes } = await retryOnConflict(() =>
        inTransaction(this.pool, (client) => this.apply(client, tenant, operations, requiredLeases)),
      )
      for (const wake of wakes) {
        if (wake.kind === 'stored') this.listener.messagesStored(tenant, wake.queue, wake.partition)
        else this.listener.leaseReleased(tenant, wake.queue, wake.partition)
      }
      return { transactionId, success: true, results }
    } catch (error) {
      if (error instanceof TransactionFailure) {
        return { transactionId, success: false, error: error.message, results: error.results }
      }
      return { transactionId, success: false, error: describeDbFailure(error), results: [] }
    }
  }

  private refusal(tenant: string, operations: TransactionOperation[]): string | undefined {
    if (!this.guards) return undefined
    const pushes = operations.flatMap((operation) => (operation.type === 'push' ? operation.items : []))
    if (pushes.length === 0) return undefined
    if (this.guards.pushMaintenance()) return 'push maintenance mode is on: transactional pushes are paused'
    const waiting = pushes.find((item) => this.guards!.partitionHasSpooled(tenant, item.queue, item.partition))
    if (waiting) return `partition ${waiting.queue}/${waiting.partition} has spooled messages awaiting replay; retry`
    return undefined
  }

  private async apply(
    client: pg.PoolClient,
    tenant: string,
    operations: TransactionOperation[],
    requiredLeases: string[],
  ): Promise<{ results: TransactionOpResult[]; wakes: Wake[] }> {
    const results: TransactionOpResult[] = []
    const wakes: Wake[] = []
    if (requiredLeases.length > 0) {
      const live = await runQuery<{ lease_id: string }>(client, 'leaseLockRequired', [requiredLeases, tenant])
      const liveIds = new Set(live.map((row) => row.lease_id))
      const missing = requiredLeases.find((lease) => !liveIds.has(lease.toLowerCase()))
      if (missing !== undefined) throw new TransactionFailure(`Lease expired or not found: ${missing}`, results)
    }

    for (const [index, operation] of operations.entries()) {
      if (operation.type === 'push') {
        const outcomes = await this.push.pushInTransaction(client, tenant, operation.items)
        for (const outcome of outcomes) {
          if (outcome.status === 'failed') {
            throw new TransactionFailure(`PUSH operation failed: ${outcome.error}`, results)
          }
          if (outcome.status === 'buffered') throw new TransactionFailure('PUSH operation failed: not stored', results)
          results.push({
            index,
            type: 'push',
            success: true,
            transactionId: outcome.transactionId,
            messageId: outcome.messageId,
            partitionId: outcome.partitionId,
            queueName: outcome.queue,
            duplicate: outcome.status === 'duplicate',
          })
          if (outcome.status === 'queued')
            wakes.push({ kind: 'stored', queue: outcome.queue, partition: outcome.partition })
        }
      } else {
        const [outcome] = await this.ack.ackInTransaction(client, tenant, [operation.item])
        if (!outcome?.success) {
          throw new TransactionFailure(`ACK operation failed: ${outcome?.error ?? 'unknown error'}`, results)
        }
        results.push({
          index,
          type: 'ack',
          success: true,
          transactionId: outcome.transactionId,
          error: null,
          dlq: outcome.dlq,
          alreadyAcked: outcome.alreadyAcked,
        })
        if (outcome.leaseReleased && outcome.queueName && outcome.partitionName) {
          wakes.push({ kind: 'released', queue: outcome.queueName, partition: outcome.partitionName })
        }
      }
    }
    return { results, wakes }
  }
}
