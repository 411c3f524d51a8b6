/** The queue listings (docs/http-api.md, "Queues and resources"). */
import type { MessageCounters, Pagination, Timestamp } from './common.js'

/** One row of GET /api/v1/resources/queues and GET /api/v1/status/queues. */
export interface QueueRow {
  id: string
  name: string
  namespace: string
  task: string
  createdAt: Timestamp
  partitions: number
  messages: { total: number; pending: number; processing: number }
}

/** GET /api/v1/resources/queues. */
export interface QueueListAnswer {
  queues: QueueRow[]
}

/** GET /api/v1/status/queues. */
export interface QueueStatusListAnswer {
  queues: QueueRow[]
  pagination: Pagination
}

/** One partition of GET /api/v1/resources/queues/:queue. */
export interface PartitionDetail {
  id: string
  name: string
  createdAt: Timestamp
  stats: MessageCounters
  oldestMessage: Timestamp | null
  newestMessage: Timestamp | null
}

/** GET /api/v1/resources/queues/:queue: the queue, its partitions and its options as configured. */
export interface QueueDetailAnswer {
  id: string
  name: string
  namespace: string
  task: string
  createdAt: Timestamp
  partitions: PartitionDetail[]
  totals: MessageCounters
  options: Record<string, unknown>
}

/** One partition of GET /api/v1/resources/queues/:queue/depth. */
export interface PartitionDepth {
  partition: string
  /** Messages the group has not settled. */
  pending: number
  /** The part of `pending` in flight under the group's live lease. */
  processing: number
  /** `pending - processing`: what a pop could take now. */
  ready: number
}

/**
 * GET /api/v1/resources/queues/:queue/depth[?group=G]: a group's backlog by partition, live (never the stats
 * snapshot). The Go broker's shape: `conflation` is always false here (no last-value delivery), so the effective
 * figures equal pending and ready.
 */
export interface QueueDepthAnswer {
  queue: string
  /** The `group` asked for; null without one. */
  group: string | null
  pending: number
  processing: number
  ready: number
  /** Partitions with anything pending. */
  partitionsPending: number
  /** Partitions with anything ready. */
  partitionsReady: number
  conflation: false
  effectivePending: number
  effectiveReady: number
  partitions: PartitionDepth[]
}

/** One partition of GET /api/v1/status/queues/:queue, with its cursor. */
export interface PartitionStatus {
  id: string
  name: string
  createdAt: Timestamp
  messages: MessageCounters
  /** The same counters again, under the name the Go client reads. */
  stats: MessageCounters
  cursor: { totalConsumed: number; batchesConsumed: number }
  lastActivity: Timestamp
  oldestMessage: Timestamp | null
  newestMessage: Timestamp | null
}

/** GET /api/v1/status/queues/:queue. */
export interface QueueStatusAnswer {
  queue: {
    id: string
    name: string
    namespace: string
    task: string
    priority: number
    createdAt: Timestamp
    config: {
      leaseTime: number
      retryLimit: number
      retryDelay: number
      ttl: null
      maxQueueSize: number
      deadLetterQueue: boolean
    }
  }
  partitions: PartitionStatus[]
  totals: MessageCounters & { messages: MessageCounters }
}

/** Queues and partitions of one namespace or task, with their counters. */
export interface GroupedQueues {
  queues: number
  partitions: number
  messages: { total: number; pending: number }
}

/** GET /api/v1/resources/namespaces. */
export interface NamespacesAnswer {
  namespaces: (GroupedQueues & { namespace: string })[]
}

/** GET /api/v1/resources/tasks. */
export interface TasksAnswer {
  tasks: (GroupedQueues & { task: string })[]
}

/** Avg, median, min and max of a lag figure. */
export interface LagSummary {
  avg: number
  median: number
  min: number
  max: number
}

/** GET /api/v1/resources/overview. */
export interface ResourceOverviewAnswer {
  queues: number
  partitions: number
  namespaces: number
  tasks: number
  messages: MessageCounters
  lag: { time: LagSummary; offset: LagSummary }
  throughput: { ingestedPerSecond: number; processedPerSecond: number }
  timestamp: Timestamp
  statsAge: number
}
