/**
 * The parts of the broker answers `queenctl top` reads (docs/http-api.md). Only the
 * fields the dashboard shows are typed; the broker sends more.
 */

import type { OpCounts } from '../analytics.js'
import type { MessageCounters } from '../queues.js'

/** Message counters of the stats snapshot (docs/semantics.md, "Status counters"), as the queue commands read them. */
export type { MessageCounters }

/** GET /api/v1/status. */
export interface StatusAnswer {
  queues: { name: string; partitions: number }[]
  messages: MessageCounters
  leases: { active: number }
  deadLetterQueue: { totalMessages: number; topErrors: { error: string; count: number }[] }
  /** Seconds since the stats snapshot was refreshed; null before the first refresh. */
  statsAge: number | null
}

/** One row of GET /api/v1/resources/queues. */
export interface QueueResource {
  name: string
  namespace: string | null
  task: string | null
  partitions: number
  messages: { total: number; pending: number; processing: number }
}

/** GET /api/v1/resources/queues. */
export interface QueuesAnswer {
  queues: QueueResource[]
}

/** GET /api/v1/resources/queues/:queue (the drill-in). */
export interface QueueDetailAnswer {
  name: string
  partitions: {
    name: string
    stats: MessageCounters
    oldestMessage: string | null
    newestMessage: string | null
  }[]
  totals: MessageCounters
}

/** One row of GET /api/v1/analytics/queue-ops `series`: counts of one queue in one bucket. */
export type QueueOpsRow = OpCounts & { bucketTime: string }

/** GET /api/v1/analytics/queue-ops. */
export interface QueueOpsAnswer {
  bucketMinutes: number
  series: QueueOpsRow[]
}

/** One row of GET /api/v1/consumer-groups: a (group, queue) pair. */
export interface ConsumerGroupRow {
  name: string
  queueName: string
  members: number
  totalLag: number
  /** Age in seconds of the oldest unsettled message. */
  maxTimeLag: number
  state: string
}

/** One message of GET /api/v1/dlq. */
export interface DlqMessage {
  queue: string
  partition: string
  consumerGroup: string | null
  errorMessage: string | null
  failedAt: string
}

/** GET /api/v1/dlq. */
export interface DlqAnswer {
  messages: DlqMessage[]
  total: number
}

/** One point of GET /api/v1/analytics/system-metrics: one replica in one minute. */
export interface SystemMetricsPoint {
  timestamp: string
  serverId: string
  hostname: string
  cpuUserPercent: number
  cpuSystemPercent: number
  rssBytes: number
  eventLoopLagP99Ms: number
  poolTotal: number
  poolIdle: number
  poolWaiting: number
  requests: number
  parkedPops: number
}

/** GET /api/v1/analytics/system-metrics. */
export interface SystemMetricsAnswer {
  bucketMinutes: number
  series: SystemMetricsPoint[]
}

/** The parts of GET /api/v1/analytics/postgres-stats the System pane shows. */
export interface PostgresStatsAnswer {
  databaseCache: { hitRatio: number | null; connections: number } | null
  cacheSummary: { tableHitRatio: number | null; indexHitRatio: number | null } | null
  bufferConfig: { maxConnections: number } | null
}

/** GET /api/v1/system/maintenance. */
export interface MaintenanceAnswer {
  maintenanceMode: boolean
  popMaintenanceMode: boolean
  bufferedMessages: number
  bufferHealthy: boolean
}

/** One peer of GET /api/v1/system/mesh. */
export interface MeshPeer {
  address: string
  serverId: string | null
  state: string
  since: string | null
  lastHeartbeatAt: string | null
  rttMs: number | null
}

/** GET /api/v1/system/mesh. */
export interface MeshAnswer {
  serverId: string
  port: number
  auth: string
  listening: boolean
  peersConfigured: number
  peersConnected: number
  peers: MeshPeer[]
}
