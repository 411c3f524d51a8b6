/**
 * The overview's bounded leaders (status-top-* statements): the queues with the most pending messages and
 * the groups with the most lag, at most `limit` of each, and the queue and partition counts, all from the
 * stats snapshot, so the cost of a read does not grow with the number of queues beyond a sort of the
 * snapshot's rows.
 */
import type pg from 'pg'
import { runQuery } from '../db/run-query.js'
import type { TopQueue } from '../../wire/index.js'

/** A queue of the snapshot, as the route shows it. */
export type TopQueueRow = TopQueue

/** A (group, queue) pair of the snapshot. */
export interface TopGroupRow {
  consumer_group: string
  queue_name: string
  partitions: number
  lag_messages: number
  lag_seconds: number
}

/** What GET /api/v1/status/top reads. */
export interface StatusTop {
  queues: number
  partitions: number
  refreshedAt: Date | null
  queuesByPending: TopQueueRow[]
  groupsByLag: TopGroupRow[]
}

/** The tenant's leaders, at most `limit` of each. */
export async function readStatusTop(pool: pg.Pool, params: { tenant: string; limit: number }): Promise<StatusTop> {
  const [counts, queuesByPending, groupsByLag] = await Promise.all([
    runQuery<{ queues: number; partitions: number; refreshed_at: Date }>(pool, 'statusTopCounts', [params.tenant]),
    runQuery<TopQueueRow>(pool, 'statusTopQueues', [params.tenant, params.limit]),
    runQuery<TopGroupRow>(pool, 'statusTopGroups', [params.tenant, params.limit]),
  ])
  const system = counts[0]
  return {
    queues: system?.queues ?? 0,
    partitions: system?.partitions ?? 0,
    refreshedAt: system?.refreshed_at ?? null,
    queuesByPending,
    groupsByLag,
  }
}
