/**
 * The partition listing of GET /api/v1/resources/partitions: the partition-list statement.
 */
import type pg from 'pg'
import { runQuery } from '../db/run-query.js'

/** A partition with its queue's name and tags and its live message counters. */
export interface PartitionListRow {
  id: string
  name: string
  /** Name of the queue the partition belongs to. */
  queue: string
  namespace: string
  task: string
  created_at: Date
  /** Last push to the partition (its creation until then). */
  last_activity_at: Date
  total: number
  pending: number
  processing: number
}

/** Filter and page of the partition listing. */
export interface PartitionListFilter {
  tenant: string
  /** Only the partitions of this queue; null lists those of every queue of the tenant. */
  queue: string | null
  limit: number
  offset: number
}

/** The tenant's partitions by queue name, then partition name; an unknown queue has none. */
export async function listPartitions(pool: pg.Pool, filter: PartitionListFilter): Promise<PartitionListRow[]> {
  // partition-list.sql: $1 tenant, $2 queue name or NULL, $3 limit, $4 offset.
  return runQuery<PartitionListRow>(pool, 'partitionList', [filter.tenant, filter.queue, filter.limit, filter.offset])
}
