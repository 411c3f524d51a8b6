/**
 * Queue reads and the clear of a queue's messages: the queue-list, queue-partitions and queue-clear
 * statements. Configure and delete, which also touch caches and waiters, are in queue-configuration.ts.
 */
import type pg from 'pg'
import { runQuery } from '../db/run-query.js'
import type { MessageCountersRow } from '../db/message-counters.js'

/** A queue with its partition count and message counters, as the queue listings read it. */
export interface QueueSummaryRow {
  id: string
  name: string
  namespace: string
  task: string
  created_at: Date
  partitions: number
  total: number
  pending: number
  processing: number
}

/** A partition of one queue with its status counters. */
export interface QueuePartitionRow extends MessageCountersRow {
  id: string
  name: string
  created_at: Date
  oldest_message: Date | null
  newest_message: Date | null
}

/** Filters and page of the queue listing; null filters match every queue. */
export interface QueueListFilter {
  tenant: string
  /** Case-insensitive substring of the queue name. */
  search: string | null
  namespace: string | null
  task: string | null
  limit: number
  offset: number
}

/** The tenant's queues, newest first. */
export async function listQueues(pool: pg.Pool, filter: QueueListFilter): Promise<QueueSummaryRow[]> {
  // queue-list.sql: $1 tenant, $2 search, $3 namespace, $4 task, $5 limit, $6 offset.
  return runQuery<QueueSummaryRow>(pool, 'queueList', [
    filter.tenant,
    filter.search,
    filter.namespace,
    filter.task,
    filter.limit,
    filter.offset,
  ])
}

/** One queue's partitions with their counters. */
export async function listQueuePartitions(pool: pg.Pool, params: { queueId: string }): Promise<QueuePartitionRow[]> {
  // queue-partitions.sql: $1 queue id.
  return runQuery<QueuePartitionRow>(pool, 'queuePartitions', [params.queueId])
}

/** One partition's backlog for a consumer group (queue-depth.sql). */
export interface QueueDepthRow {
  partition: string
  pending: number
  processing: number
}

/**
 * Per partition, the messages `group` has not settled and those of them in flight; a null group reads the cursor the
 * status counters use (docs/semantics.md, "Status counters").
 */
export async function queueDepth(
  pool: pg.Pool,
  params: { queueId: string; group: string | null },
): Promise<QueueDepthRow[]> {
  // queue-depth.sql: $1 queue id, $2 group or NULL.
  return runQuery<QueueDepthRow>(pool, 'queueDepth', [params.queueId, params.group])
}

/**
 * Deletes every message of a queue, or only those of one partition, and keeps the queue itself; resolves
 * with the number of messages deleted (0 when the queue has no partition of that name), or null when the
 * queue does not exist.
 */
export async function clearQueueMessages(
  pool: pg.Pool,
  params: {
    tenant: string
    queue: string
    /** The one partition to clear; null or absent clears every partition. */
    partition?: string | null
  },
): Promise<number | null> {
  // queue-clear.sql: $1 tenant, $2 queue name, $3 partition name or NULL.
  const [row] = await runQuery<{ deleted_messages: number | null }>(pool, 'queueClear', [
    params.tenant,
    params.queue,
    params.partition ?? null,
  ])
  return row?.deleted_messages ?? null
}
