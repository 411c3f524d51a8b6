/**
 * The parameters of one queen.push_batch() call (message-push.sql): one array per item field and the
 * payloads as one JSON array. PostgreSQL parses these at about half the cost of the same items as JSON
 * objects (schema 002), and building them allocates nothing per item but the payload's JSON text.
 */
import { booleanArray, textArray, uuidArray } from '../db/array-literals.js'

export interface PushBatchItem {
  queue: string
  partition: string
  /** The message id (UUIDv7, made by the broker). */
  id: string
  transactionId: string
  /** True when the broker generated the transaction id (no earlier message can carry it). */
  generated: boolean
  traceId: string | null
  producerSub: string | null
  payload: unknown
  encrypted: boolean
  /** ISO acceptance time; only spool replay passes one (the original), the database clock otherwise. */
  acceptedAt?: string
}

export class PushBatchParams {
  private readonly queues: string[] = []
  private readonly partitions: string[] = []
  private readonly ids: string[] = []
  private readonly transactionIds: string[] = []
  private readonly generated: boolean[] = []
  private readonly traceIds: (string | null)[] = []
  private readonly producerSubs: (string | null)[] = []
  private readonly encrypted: boolean[] = []
  private readonly acceptedAt: (string | null)[] = []
  private readonly payloads: string[] = []
  // Arrays whose every element is NULL go as one NULL (unnest pads it), which PostgreSQL need not parse.
  private anyTraceId = false
  private anyProducerSub = false
  private anyAcceptedAt = false

  private readonly tenant: string
  private readonly replay: boolean

  constructor(tenant: string, replay: boolean) {
    this.tenant = tenant
    this.replay = replay
  }

  get size(): number {
    return this.ids.length
  }

  add(item: PushBatchItem): void {
    this.queues.push(item.queue)
    this.partitions.push(item.partition)
    this.ids.push(item.id)
    this.transactionIds.push(item.transactionId)
    this.generated.push(item.generated)
    this.traceIds.push(item.traceId)
    this.producerSubs.push(item.producerSub)
    this.encrypted.push(item.encrypted)
    this.acceptedAt.push(item.acceptedAt ?? null)
    // A payload the client left out is stored as JSON null.
    this.payloads.push(item.payload === undefined ? 'null' : JSON.stringify(item.payload))
    if (item.traceId !== null) this.anyTraceId = true
    if (item.producerSub !== null) this.anyProducerSub = true
    if (item.acceptedAt !== undefined) this.anyAcceptedAt = true
  }

  /** The values of message-push.sql, in its parameter order (arrays as literals, see array-literals.ts). */
  values(): unknown[] {
    return [
      this.tenant,
      textArray(this.queues),
      textArray(this.partitions),
      uuidArray(this.ids),
      textArray(this.transactionIds),
      booleanArray(this.generated),
      this.anyTraceId ? textArray(this.traceIds) : null,
      this.anyProducerSub ? textArray(this.producerSubs) : null,
      booleanArray(this.encrypted),
      `[${this.payloads.join(',')}]`,
      this.replay,
      this.anyAcceptedAt ? textArray(this.acceptedAt) : null,
    ]
  }
}
