/**
 * Single messages and their listing: the message-list, message-get, message-delete and message-dead-letter
 * statements. The retry out of the DLQ, a transaction of several steps, is in message-retry.ts.
 */
import type pg from 'pg'
import { runQuery } from '../db/run-query.js'

/** Status of a message for one group (docs/http-api.md, "List messages"). */
export type MessageStatus = 'pending' | 'processing' | 'completed' | 'dead_letter'

/** The message path: which message of which partition. */
export interface MessageKey {
  tenant: string
  partitionId: string
  transactionId: string
}

/** Filters and page of the message listing; null filters match every message. */
export interface MessageListFilter {
  tenant: string
  queue: string | null
  partition: string | null
  namespace: string | null
  task: string | null
  status: MessageStatus | null
  /** The group whose status is computed (and filtered on). */
  group: string
  /** Created at or after; null: one hour before `to` (or before now). */
  from: Date | null
  /** Created at or before; null: no upper bound. */
  to: Date | null
  limit: number
  offset: number
}

/** Columns the listing and the single read share: where the message is, its tags and its state. */
interface MessageColumns {
  transaction_id: string
  partition_id: string
  queue_name: string
  partition_name: string
  namespace: string
  task: string
  /** For the group asked about (the listing) or the reference group (the single read). */
  status: MessageStatus
  trace_id: string | null
  producer_sub: string | null
  /** The queue's priority. */
  priority: number
  created_at: Date
  lease_expires_at: Date | null
}

/**
 * A row of the listing. The first row always carries the consumption mode of the queues in scope; when no
 * message matches it is the only row and its message columns are null.
 */
export interface MessageListRow extends MessageColumns {
  has_queue_mode: boolean
  bus_groups: number
  id: string | null
  queue_status: MessageStatus
  consumed_by: number
  total_groups: number
}

/** One message with its payload as stored, its queue's delivery options and its state per group. */
export interface MessageDetailRow extends MessageColumns {
  id: string
  payload: unknown
  is_encrypted: boolean
  error_message: string | null
  retry_count: number
  lease_time_seconds: number
  retry_limit: number
  retry_delay_ms: number
  has_queue_mode: boolean
  consumer_groups: { name: string; consumed: boolean; leaseExpiresAt: string | null }[]
}

/** What a delete did; the names are set when a message was deleted. */
export interface MessageDeleteRow {
  deleted: boolean
  queue_name: string | null
  partition_name: string | null
}

/** What a move to the DLQ did. */
export interface DeadLetterMoveRow {
  outcome: 'moved' | 'not_found' | 'already_settled'
  queue_name: string | null
  partition_name: string | null
  /** The group's lease on the partition was released by the move. */
  lease_released: boolean
}

/** The tenant's messages in a time window, newest first, without payloads. */
export async function listMessages(pool: pg.Pool, filter: MessageListFilter): Promise<MessageListRow[]> {
  // message-list.sql: $1 tenant, $2 queue, $3 partition, $4 namespace, $5 task, $6 status, $7 group,
  // $8 from, $9 to, $10 limit, $11 offset.
  return runQuery<MessageListRow>(pool, 'messageList', [
    filter.tenant,
    filter.queue,
    filter.partition,
    filter.namespace,
    filter.task,
    filter.status,
    filter.group,
    filter.from,
    filter.to,
    filter.limit,
    filter.offset,
  ])
}

/** The newest message with that transaction id on the partition, or undefined. */
export async function getMessage(pool: pg.Pool, key: MessageKey): Promise<MessageDetailRow | undefined> {
  // message-get.sql: $1 tenant, $2 partition id, $3 transaction id.
  const [row] = await runQuery<MessageDetailRow>(pool, 'messageGet', [key.tenant, key.partitionId, key.transactionId])
  return row
}

/** Deletes a message (or its surviving DLQ copy) and moves every group past it. */
export async function deleteMessage(pool: pg.Pool, key: MessageKey): Promise<MessageDeleteRow> {
  // message-delete.sql: $1 tenant, $2 partition id, $3 transaction id.
  const [row] = await runQuery<MessageDeleteRow>(pool, 'messageDelete', [
    key.tenant,
    key.partitionId,
    key.transactionId,
  ])
  return row ?? { deleted: false, queue_name: null, partition_name: null }
}

/** Dead-letters a message for one group and settles it there. */
export async function moveToDeadLetter(
  pool: pg.Pool,
  params: MessageKey & { group: string; error: string },
): Promise<DeadLetterMoveRow> {
  // message-dead-letter.sql: $1 tenant, $2 partition id, $3 transaction id, $4 group, $5 error text.
  const [row] = await runQuery<DeadLetterMoveRow>(pool, 'messageDeadLetter', [
    params.tenant,
    params.partitionId,
    params.transactionId,
    params.group,
    params.error,
  ])
  return row ?? { outcome: 'not_found', queue_name: null, partition_name: null, lease_released: false }
}
