/**
 * Resource listings across queues (resource-namespaces, resource-tasks and resource-overview statements),
 * with counters computed live from queen.partition_counters.
 */
import type pg from 'pg'
import { runQuery } from '../db/run-query.js'
import type { MessageCountersRow } from '../db/message-counters.js'

/** Queues grouped by one tag, with partition and message counts. */
export interface GroupedQueuesRow {
  queues: number
  partitions: number
  total: number
  pending: number
}

/** The tenant's totals: counts, status counters and lag per (partition, group) aggregated. */
export interface OverviewRow extends MessageCountersRow {
  queues: number
  partitions: number
  namespaces: number
  tasks: number
  /** Time lag in seconds. */
  time_avg: number
  time_median: number
  time_min: number
  time_max: number
  /** Offset lag in messages. */
  offset_avg: number
  offset_median: number
  offset_min: number
  offset_max: number
}

/** The tenant's queues grouped by namespace (queues without one are left out). */
export async function listNamespaces(
  pool: pg.Pool,
  params: { tenant: string },
): Promise<(GroupedQueuesRow & { namespace: string })[]> {
  // resource-namespaces.sql: $1 tenant.
  return runQuery<GroupedQueuesRow & { namespace: string }>(pool, 'resourceNamespaces', [params.tenant])
}

/** The tenant's queues grouped by task (queues without one are left out). */
export async function listTasks(
  pool: pg.Pool,
  params: { tenant: string },
): Promise<(GroupedQueuesRow & { task: string })[]> {
  // resource-tasks.sql: $1 tenant.
  return runQuery<GroupedQueuesRow & { task: string }>(pool, 'resourceTasks', [params.tenant])
}

/** The tenant's totals in one row. */
export async function readOverview(pool: pg.Pool, params: { tenant: string }): Promise<OverviewRow> {
  // resource-overview.sql: $1 tenant.
  const [row] = await runQuery<OverviewRow>(pool, 'resourceOverview', [params.tenant])
  // The statement aggregates without GROUP BY, so it always answers exactly one row.
  return row!
}
