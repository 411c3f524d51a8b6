/**
 * Seeks of a consumer group's cursor (consumer-group-seek and partition-seek statements), retried in place
 * on deadlocks: creating consumer rows can deadlock with a pop creating the same rows in another order.
 */
import type pg from 'pg'
import { runQuery } from '../db/run-query.js'
import { retryOnConflict } from '../../platform/postgres/retry.js'

/** What a seek moved. */
export interface SeekRow {
  /** NULL when the queue does not exist (queue seeks only). */
  queue_id: string | null
  partitions_updated: number
  cursor_moved_to: number | null
}

/** A queue seek: to the head, or to the last message created at or before `timestamp`. */
export interface QueueSeek {
  tenant: string
  queue: string
  group: string
  toEnd: boolean
  /** Null with `toEnd`. */
  timestamp: Date | null
}

/** Moves the group's cursor on every partition of the queue; undefined when nothing answered. */
export async function seekConsumerGroup(pool: pg.Pool, seek: QueueSeek): Promise<SeekRow | undefined> {
  // consumer-group-seek.sql: $1 tenant, $2 queue name, $3 group, $4 to end, $5 timestamp.
  const [row] = await retryOnConflict(() =>
    runQuery<SeekRow>(pool, 'consumerGroupSeek', [seek.tenant, seek.queue, seek.group, seek.toEnd, seek.timestamp]),
  )
  return row
}

/** Moves the group's cursor on one partition to its head; `partitions_updated` 0: no such queue or partition. */
export async function seekPartitionToEnd(
  pool: pg.Pool,
  params: { tenant: string; queue: string; group: string; partition: string },
): Promise<SeekRow | undefined> {
  // partition-seek.sql: $1 tenant, $2 queue name, $3 group, $4 partition name.
  const [row] = await retryOnConflict(() =>
    runQuery<SeekRow>(pool, 'partitionSeek', [params.tenant, params.queue, params.group, params.partition]),
  )
  return row
}
