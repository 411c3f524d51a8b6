/**
 * The pop path (semantics.md section 4, http-api.md 4.2 and 5.2): resolves the queue and partition, runs
 * queen.pop_messages(), shapes the envelope, and parks long-polls in {@link PopWaiters} when nothing is
 * deliverable.
 */
import type pg from 'pg'
import { newUuidV7 } from '../ids.js'
import { runQuery, runQueryRawJson } from '../db/pool.js'
import { RawJson } from '../http/raw-json.js'
import { describeDbFailure } from '../db/pg-errors.js'
import { NAMESPACE_WAIT_PREFIX, type PopWaiters } from './pop-waiters.js'
import type { QueueRegistry } from './queue-registry.js'
import type { BrokerEvents } from '../observe/broker-events.js'
import { isKeyUnavailableError, keyUnavailableBody, type PopDecryption } from '../crypto/pop-decryption.js'

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

/** The answer of a pop: a body, plus the lease to release if it cannot be delivered. */
export interface PopAnswer {
  body: Record<string, unknown>
  /** Set when messages were leased (not auto-acked). */
  leaseId?: string
  /** Time the pop spent parked (excluded from request latency). */
  parkedMs?: number
}

interface PopRow {
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

type Attempt =
  | { kind: 'messages'; answer: PopAnswer; more: boolean }
  | { kind: 'final'; answer: PopAnswer }
  | { kind: 'nothing'; answer: PopAnswer }

/** Runs pops and long-polls. */
export class PopEngine {
  private readonly pool: pg.Pool
  private readonly registry: QueueRegistry
  private readonly waiters: PopWaiters
  private readonly events: BrokerEvents
  private readonly decryption: PopDecryption | undefined

  constructor(
    pool: pg.Pool,
    registry: QueueRegistry,
    waiters: PopWaiters,
    events: BrokerEvents,
    decryption?: PopDecryption,
  ) {
    this.pool = pool
    this.registry = registry
    this.waiters = waiters
    this.events = events
    this.decryption = decryption
  }

  /**
   * Answers a pop, waiting up to `timeoutMs` when `wait` is set and nothing is deliverable. `gone` aborts
   * when the client disconnected: a parked pop then leaves the line at once, so the next message goes to
   * a live waiter instead of a dead socket.
   */
  async pop(request: PopRequest, gone?: AbortSignal): Promise<PopAnswer> {
    const leaseId = newUuidV7()
    if (!request.wait || request.timeoutMs === 0) return (await this.attempt(request, leaseId)).answer
    const key = {
      tenant: request.tenant,
      queue: waitQueueKey(request),
      partition: request.partition,
      group: request.group,
    }
    if (!this.waiters.queueBehindWaiters(key)) {
      const first = await this.attempt(request, leaseId)
      if (first.kind !== 'nothing') return first.answer
    }

    const parkedAt = Date.now()
    const parked = (answer: PopAnswer): PopAnswer => ({ ...answer, parkedMs: Date.now() - parkedAt })
    if (gone?.aborted) return parked({ body: deadlineEnvelope(request) })
    return new Promise<PopAnswer>((settle) => {
      let cancel: (() => void) | undefined
      const leave = () => cancel?.()
      const resolve = (answer: PopAnswer) => {
        gone?.removeEventListener('abort', leave)
        settle(answer)
      }
      const deadline = Date.now() + request.timeoutMs
      cancel = this.waiters.park(key, {
        deadline,
        attempt: async () => {
          const next = await this.attempt(request, leaseId)
          if (next.kind === 'nothing') return 'empty'
          resolve(parked(next.answer))
          if (next.kind !== 'messages') return 'failed'
          return next.more ? 'more' : 'delivered'
        },
        end: () => resolve(parked({ body: deadlineEnvelope(request) })),
      })
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
    if (!queue) return { kind: 'nothing', answer: { body: noPartition() } }
    if (request.partition === null) return [{ queueId: queue.id, queue: queue.name, partitionId: null }]
    const found = await runQuery<{ id: string }>(this.pool, 'partitionGet', [queue.id, request.partition])
    if (!found[0]) {
      return { kind: 'nothing', answer: { body: { success: false, error: 'partition_not_found', messages: [] } } }
    }
    return [{ queueId: queue.id, queue: queue.name, partitionId: found[0].id }]
  }

  private async attempt(request: PopRequest, leaseId: string): Promise<Attempt> {
    let rows: (PopRow & { queue: string })[] = []
    let more = false
    // A queue whose encrypted payloads this broker cannot decrypt: its pop statement failed and left nothing.
    let keyUnavailable: string | undefined
    try {
      const targets = await this.targets(request)
      if (!Array.isArray(targets)) return targets
      let batch = request.batch
      let partitions = request.partition === null ? request.maxPartitions : 1
      // Namespace/task pops visit queues by priority, then least recently served (semantics.md 4.9).
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
          rows.push(row as PopRow & { queue: string })
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
          return { kind: 'final', answer: { body: keyUnavailableBody(opened.keyUnavailable) } }
        }
        rows = opened.rows
      }
    } catch (error) {
      // Data-plane rule: a database failure is a 200 with success:false, never a 5xx (http-api.md 2.6).
      return { kind: 'final', answer: { body: { success: false, error: describeDbFailure(error), messages: [] } } }
    }

    const first = rows[0]
    if (!first && keyUnavailable !== undefined) {
      return { kind: 'final', answer: { body: keyUnavailableBody(keyUnavailable) } }
    }
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
    this.reportDelivered(request.tenant, rows)
    const body = {
      success: true,
      queue: first.queue,
      partition: first.partition_name,
      partitionId: first.partition_id,
      leaseId: wireLease,
      consumerGroup: request.group,
      messages: new RawJson(messagesJson(rows, wireLease, request.group)),
      partitionsClaimed: new Set(rows.map((row) => row.partition_id)).size,
    }
    return { kind: 'messages', answer: request.autoAck ? { body } : { body, leaseId }, more }
  }

  private reportDelivered(tenant: string, rows: (PopRow & { queue: string })[]): void {
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

/**
 * `messages[]` of a pop answer (http-api.md 4.1) as JSON text, written directly: popped payloads arrive as
 * JSON text, and building an object per message only for JSON.stringify to walk it again was the largest
 * share of the broker's CPU in a drain after garbage collection. Ids, lease ids and timestamps come from
 * PostgreSQL in fixed formats that need no escaping; every other string goes through JSON.stringify.
 */
function messagesJson(rows: (PopRow & { queue: string })[], leaseId: string, group: string): string {
  const groupJson = JSON.stringify(group)
  let queue: string | undefined
  let queueJson = ''
  let partition: string | null = null
  let partitionJson = ''
  const parts: string[] = []
  for (const row of rows) {
    if (row.queue !== queue) {
      queue = row.queue
      queueJson = JSON.stringify(queue)
    }
    if (row.partition_name !== partition) {
      partition = row.partition_name
      partitionJson = JSON.stringify(partition)
    }
    const data = typeof row.payload === 'string' ? row.payload : (JSON.stringify(row.payload) ?? 'null')
    parts.push(
      `{"id":"${row.message_id}","transactionId":${JSON.stringify(row.transaction_id)},` +
        `"traceId":${row.trace_id === null ? 'null' : `"${row.trace_id}"`},"data":${data},` +
        `"producerSub":${JSON.stringify(row.producer_sub)},"createdAt":"${row.created_at}",` +
        `"partitionId":"${row.partition_id}","partition":${partitionJson},"leaseId":"${leaseId}",` +
        `"consumerGroup":${groupJson},"queue":${queueJson},"retryCount":${row.retry_count ?? 0}}`,
    )
  }
  return `[${parts.join(',')}]`
}

/** The waiter key's queue: the queue name, or a namespace/task filter (woken by any push of the tenant). */
function waitQueueKey(request: PopRequest): string {
  return request.filter
    ? `${NAMESPACE_WAIT_PREFIX}${request.filter.namespace ?? ''}\u0000${request.filter.task ?? ''}`
    : request.queue
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
