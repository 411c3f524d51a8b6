/** The bounded leaders of the overview (docs/http-api.md, "Status and analytics"). */
import type { Timestamp } from './common.js'

/** One queue of GET /api/v1/status/top, from the stats snapshot. */
export interface TopQueue {
  name: string
  namespace: string
  task: string
  partitions: number
  total: number
  pending: number
  processing: number
}

/** One (consumer group, queue) pair of GET /api/v1/status/top; `__QUEUE_MODE__` is queue mode. */
export interface TopGroup {
  consumerGroup: string
  queueName: string
  /** Partitions the group has a cursor on. */
  partitions: number
  /** Unsettled messages above the group's cursors. */
  lagMessages: number
  /** Age of the oldest unsettled message, seconds. */
  lagSeconds: number
}

/** GET /api/v1/status/top: at most `limit` of each, whatever the number of queues. */
export interface StatusTopAnswer {
  queues: number
  partitions: number
  queuesByPending: TopQueue[]
  groupsByLag: TopGroup[]
  /** Seconds since the stats snapshot was refreshed; null before the first refresh. */
  statsAge: number | null
  refreshedAt: Timestamp | null
}
