/**
 * The pop path (semantics.md section 4, http-api.md 4.2 and 5.2): resolves the queue and partition, runs
 * queen.pop_messages(), shapes the envelope, and parks long-polls in {@link PopWaiters} when nothing is
 * deliverable.
 */
import type pg from 'pg'
import { v7 as uuidv7 } from 'uuid'
import { runQuery } from '../db/pool.js'
import { describeDbFailure } from '../db/pg-errors.js'
import type { PopWaiters } from './pop-waiters.js'
import type { QueueRegistry } from './queue-registry.js'
import type { BrokerEvents } from '../observe/broker-events.js'

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
}

/** One element of `messages[]` (http-api.md 4.1). */
export interface PoppedMessage {
  id: string
  transactionId: string
  traceId: string | null
  data: unknown
  producerSub: string | null
  createdAt: string
  partitionId: string
  partition: string
  leaseId: string
  consumerGroup: string
  queue: string
  retryCount: number
}

/** The answer of a pop: a body, plus the lease to release if it cannot be delivered. */
export interface PopAnswer {
  body: Record<string, unknown>
  /** Set when messages were leased (not auto-acked). */
  leaseId?: string
  /** Time the pop spent parked (excluded from request latency). */
  parkedMs?: number
}

interface PopRow {
  kind: 'message' | 'lease_held' | 'window_buffer'
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
}

type Attempt =
  | { kind: 'messages'; answer: PopAnswer }
  | { kind: 'final'; answer: PopAnswer }
  | { kind: 'nothing'; answer: PopAnswer }

/** Runs pops and long-polls. */
export class PopEngine {
  private readonly pool: pg.Pool
  private readonly registry: QueueRegistry
  private readonly waiters: PopWaiters
  private readonly events: BrokerEvents

  constructor(pool: pg.Pool, registry: QueueRegistry, waiters: PopWaiters, events: BrokerEvents) {
    this.pool = pool
    this.registry = registry
    this.waiters = waiters
    this.events = events
  }

  /** Answers a pop, waiting up to `timeoutMs` when `wait` is set and nothing is deliverable. */
  async pop(request: PopRequest): Promise<PopAnswer> {
    const leaseId = uuidv7()
    const first = await this.attempt(request, leaseId)
    if (first.kind !== 'nothing' || !request.wait || request.timeoutMs === 0) return first.answer

    const parkedAt = Date.now()
    const parked = (answer: PopAnswer): PopAnswer => ({ ...answer, parkedMs: Date.now() - parkedAt })
    return new Promise<PopAnswer>((resolve) => {
      const deadline = Date.now() + request.timeoutMs
      this.waiters.park(
        { tenant: request.tenant, queue: request.queue, partition: request.partition, group: request.group },
        {
          deadline,
          attempt: async () => {
            const next = await this.attempt(request, leaseId)
            if (next.kind === 'nothing') return 'empty'
            resolve(parked(next.answer))
            return 'delivered'
          },
          end: () => resolve(parked({ body: deadlineEnvelope(request) })),
        },
      )
    })
  }

  /** Releases a lease whose answer could not be delivered, without counting a failure. */
  async releaseLease(leaseId: string): Promise<void> {
    await runQuery(this.pool, 'leaseRelease', [leaseId])
  }

  private async attempt(request: PopRequest, leaseId: string): Promise<Attempt> {
    let rows: PopRow[]
    try {
      const queue = await this.registry.get(request.tenant, request.queue)
      if (!queue) return { kind: 'nothing', answer: { body: noPartition() } }
      let partitionId: string | null = null
      if (request.partition !== null) {
        const found = await runQuery<{ id: string }>(this.pool, 'partitionGet', [queue.id, request.partition])
        if (!found[0]) {
          return { kind: 'nothing', answer: { body: { success: false, error: 'partition_not_found', messages: [] } } }
        }
        partitionId = found[0].id
      }
      rows = await runQuery<PopRow>(this.pool, 'messagePop', [
        queue.id,
        partitionId,
        request.group,
        request.batch,
        request.partition === null ? request.maxPartitions : 1,
        leaseId,
        request.autoAck,
        request.subscriptionMode,
        request.subscriptionFrom,
      ])
    } catch (error) {
      // Data-plane rule: a database failure is a 200 with success:false, never a 5xx (http-api.md 2.6).
      return { kind: 'final', answer: { body: { success: false, error: describeDbFailure(error), messages: [] } } }
    }

    const first = rows[0]
    if (!first) {
      return {
        kind: 'nothing',
        answer: { body: request.partition === null ? noPartition() : deadlineEnvelope(request) },
      }
    }
    if (first.kind === 'lease_held') {
      return { kind: 'nothing', answer: { body: { success: false, error: 'lease_held', messages: [] } } }
    }
    if (first.kind === 'window_buffer') {
      return {
        kind: 'nothing',
        answer: {
          body: {
            success: true,
            queue: request.queue,
            partition: first.partition_name,
            partitionId: first.partition_id,
            leaseId: '',
            consumerGroup: request.group,
            messages: [],
            windowBufferActive: true,
          },
        },
      }
    }

    const wireLease = request.autoAck ? '' : leaseId
    const messages: PoppedMessage[] = rows.map((row) => ({
      id: row.message_id!,
      transactionId: row.transaction_id!,
      traceId: row.trace_id,
      data: row.payload,
      producerSub: row.producer_sub,
      createdAt: row.created_at!,
      partitionId: row.partition_id!,
      partition: row.partition_name!,
      leaseId: wireLease,
      consumerGroup: request.group,
      queue: request.queue,
      retryCount: row.retry_count ?? 0,
    }))
    const now = Date.now()
    this.events.emit(
      'delivered',
      request.tenant,
      request.queue,
      messages.length,
      messages.map((message) => Math.max(0, now - Date.parse(message.createdAt))),
    )
    const body = {
      success: true,
      queue: request.queue,
      partition: first.partition_name,
      partitionId: first.partition_id,
      leaseId: wireLease,
      consumerGroup: request.group,
      messages,
      partitionsClaimed: new Set(messages.map((message) => message.partitionId)).size,
    }
    return { kind: 'messages', answer: request.autoAck ? { body } : { body, leaseId } }
  }
}

function noPartition(): Record<string, unknown> {
  return { success: false, error: 'no_available_partition', messages: [] }
}

function deadlineEnvelope(request: PopRequest): Record<string, unknown> {
  return {
    success: true,
    queue: request.queue,
    partition: request.partition ?? '',
    partitionId: null,
    leaseId: null,
    consumerGroup: request.group,
    messages: [],
  }
}
