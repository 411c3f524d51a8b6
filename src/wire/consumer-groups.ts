/** Consumer groups (docs/http-api.md, "Consumer groups"). */
import type { Timestamp } from './common.js'

/** How a group is doing: Lagging past 300 s of age, Dead when it never consumed. */
export type ConsumerGroupState = 'Lagging' | 'Stable' | 'Dead'

/** One row of GET /api/v1/consumer-groups (a bare array): one (group, queue) pair. */
export interface ConsumerGroupRow {
  name: string
  topics: string[]
  queueName: string
  members: number
  partitionsWithLag: number
  totalLag: number
  /** Age in seconds of the oldest unsettled message. */
  maxTimeLag: number
  state: ConsumerGroupState
  subscriptionMode: string | null
  subscriptionTimestamp: Timestamp | null
  subscriptionCreatedAt: Timestamp | null
}

/** One row of GET /api/v1/consumer-groups/lagging (a bare array, snake_case as the Go client reads it). */
export interface LaggingPartitionRow {
  consumer_group: string
  queue_name: string
  partition_name: string
  partition_id: string
  worker_id: null
  offset_lag: number
  time_lag_seconds: number
  lag_hours: number
  oldest_unconsumed_at: Timestamp
  last_consumed_at: Timestamp | null
}

/** One partition of a group on one queue, in GET /api/v1/consumer-groups/:group. */
export interface GroupPartition {
  partition: string
  workerId: null
  lastConsumedAt: Timestamp | null
  totalConsumed: number
  offsetLag: number
  timeLagSeconds: number
  leaseActive: boolean
}

/** GET /api/v1/consumer-groups/:group: keyed by queue name. */
export type ConsumerGroupDetailAnswer = Record<string, { partitions: GroupPartition[] }>

/** DELETE /api/v1/consumer-groups/:group (and .../queues/:queue, which adds `queueName`). */
export interface ConsumerGroupDeleteAnswer {
  success: true
  consumerGroup: string
  queueName?: string
  deletedPartitions: number
  metadataDeleted: boolean
}

/** POST /api/v1/consumer-groups/:group/queues/:queue/seek: every partition of the queue moved. */
export interface ConsumerGroupSeekAnswer {
  success: true
  consumerGroup: string
  queueName: string
  seekToEnd: boolean
  targetTimestamp: Timestamp | null
  partitionsUpdated: number
}

/** POST /api/v1/consumer-groups/:group/queues/:queue/partitions/:partition/seek: one partition moved to its head. */
export interface PartitionSeekAnswer {
  success: true
  consumerGroup: string
  queueName: string
  partitionName: string
  updated: true
  /** The cursor's new position, null when the partition holds no message. */
  cursorMovedTo: number | null
}

/** POST /api/v1/stats/refresh: rows written per level, or skipped while another broker refreshes. */
export type StatsRefreshAnswer =
  | { skipped: true; reason: 'another_instance_running' }
  | { partition: number; queue: number; namespace: number; task: number; system: number; cleanup: number }
