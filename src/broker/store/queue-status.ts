/**
 * Per-queue status reads (status-queue-list, status-queue-partitions, status-queue-messages statements):
 * counters from the stats snapshot, partitions, cursors and messages read live.
 */
import type pg from 'pg'
import { runQuery } from '../db/run-query.js'
import type { MessageCountersRow } from '../db/message-counters.js'
import type { QueueSummaryRow } from './queues.js'

/** A partition with its snapshot counters and the cursor counters of its reference group. */
export interface StatusPartitionRow extends MessageCountersRow {
  id: string
  name: string
  created_at: Date
  last_activity_at: Date
  oldest_message_at: Date | null
  newest_message_at: Date | null
  total_consumed: number
  batches_consumed: number
}

/** A message of the queue with its status for the reference group. */
export interface StatusMessageRow {
  id: string
  transaction_id: string
  partition_id: string
  partition_name: string
  created_at: Date
  status: string
}

/** The tenant's queues, newest first, with snapshot counters (zeros until a queue's first refresh). */
export async function listQueueStatus(
  pool: pg.Pool,
  filter: { tenant: string; namespace: string | null; task: string | null; limit: number; offset: number },
): Promise<QueueSummaryRow[]> {
  // status-queue-list.sql: $1 tenant, $2 namespace, $3 task, $4 limit, $5 offset.
  return runQuery<QueueSummaryRow>(pool, 'statusQueueList', [
    filter.tenant,
    filter.namespace,
    filter.task,
    filter.limit,
    filter.offset,
  ])
}

/** A queue's partitions with snapshot and cursor counters. */
export async function listPartitionStatus(pool: pg.Pool, params: { queueId: string }): Promise<StatusPartitionRow[]> {
  // status-queue-partitions.sql: $1 queue id.
  return runQuery<StatusPartitionRow>(pool, 'statusQueuePartitions', [params.queueId])
}

/** A page of the queue's messages, newest first. */
export async function listQueueMessageStatus(
  pool: pg.Pool,
  params: { queueId: string; limit: number; offset: number },
): Promise<StatusMessageRow[]> {
  // status-queue-messages.sql: $1 queue id, $2 limit, $3 offset.
  return runQuery<StatusMessageRow>(pool, 'statusQueueMessages', [params.queueId, params.limit, params.offset])
}
