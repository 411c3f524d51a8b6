/**
 * Consumer groups of a tenant: listing, lagging pairs, describe, delete and the subscription rewrite (the
 * consumer-group-* statements except the seeks, which are in consumer-group-seek.ts).
 */
import type pg from 'pg'
import { executeQuery, runQuery } from '../db/run-query.js'

/** One (group, queue) of the tenant, queue mode included, with lag totals and subscription record. */
export interface ConsumerGroupRow {
  consumer_group: string
  queue_name: string
  /** Partitions the group has a cursor on. */
  members: number
  partitions_with_lag: number
  total_lag: number
  /** Seconds. */
  max_time_lag: number
  ever_consumed: boolean
  subscription_mode: string | null
  subscription_start: Date | null
  subscription_created_at: Date | null
}

/** A (group, partition) pair whose oldest unsettled message is older than the threshold. */
export interface LaggingPartitionRow {
  consumer_group: string
  queue_name: string
  partition_name: string
  partition_id: string
  offset_lag: number
  time_lag_seconds: number
  lag_hours: number
  oldest_unsettled_at: Date
  last_consumed_at: Date | null
}

/** One partition of a group, with cursor counters, lag and lease state. */
export interface GroupPartitionRow {
  queue_name: string
  partition_name: string
  last_consumed_at: Date | null
  total_consumed: number
  offset_lag: number
  time_lag_seconds: number
  lease_active: boolean
}

/** What a group delete removed. */
export interface GroupDeletion {
  deletedPartitions: number
  deletedSubscriptions: number
}

/** The tenant's groups, one row per (group, queue). */
export async function listConsumerGroups(pool: pg.Pool, params: { tenant: string }): Promise<ConsumerGroupRow[]> {
  // consumer-group-list.sql: $1 tenant.
  return runQuery<ConsumerGroupRow>(pool, 'consumerGroupList', [params.tenant])
}

/** The (group, partition) pairs lagging by more than `minLagSeconds`, most lagging first. */
export async function listLaggingPartitions(
  pool: pg.Pool,
  params: { tenant: string; minLagSeconds: number },
): Promise<LaggingPartitionRow[]> {
  // consumer-group-lagging.sql: $1 tenant, $2 threshold in seconds.
  return runQuery<LaggingPartitionRow>(pool, 'consumerGroupLagging', [params.tenant, params.minLagSeconds])
}

/** The group's partitions on every queue of the tenant; none when the group is unknown. */
export async function describeConsumerGroup(
  pool: pg.Pool,
  params: { tenant: string; group: string },
): Promise<GroupPartitionRow[]> {
  // consumer-group-describe.sql: $1 tenant, $2 group.
  return runQuery<GroupPartitionRow>(pool, 'consumerGroupDescribe', [params.tenant, params.group])
}

/**
 * Removes the group's cursors, leases and per-message state on every queue of the tenant (or on `queue`),
 * and with `deleteMetadata` its subscription records.
 */
export async function deleteConsumerGroup(
  pool: pg.Pool,
  params: { tenant: string; group: string; queue: string | null; deleteMetadata: boolean },
): Promise<GroupDeletion> {
  // consumer-group-delete.sql: $1 tenant, $2 group, $3 queue name or NULL, $4 delete metadata.
  const [row] = await runQuery<{ deleted_partitions: number; deleted_subscriptions: number }>(
    pool,
    'consumerGroupDelete',
    [params.tenant, params.group, params.queue, params.deleteMetadata],
  )
  return { deletedPartitions: row?.deleted_partitions ?? 0, deletedSubscriptions: row?.deleted_subscriptions ?? 0 }
}

/** Rewrites the group's recorded subscription start on all its queues; resolves with the rows changed. */
export async function rewriteSubscriptionStart(
  pool: pg.Pool,
  params: { tenant: string; group: string; start: Date },
): Promise<number> {
  // consumer-group-subscription.sql: $1 tenant, $2 group, $3 new start.
  return executeQuery(pool, 'consumerGroupSubscription', [params.tenant, params.group, params.start])
}
