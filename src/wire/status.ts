/** The overview routes (docs/http-api.md, "Status and analytics"). */
import type { MessageCounters, SeriesWindow, TimeRange, Timestamp } from './common.js'

/** One bucket of the throughput series of GET /api/v1/status. */
export interface ThroughputPoint {
  timestamp: Timestamp
  ingested: number
  processed: number
  popMessages: number
  ingestedPerSecond: number
  processedPerSecond: number
  popPerSecond: number
  avgLagMs: number
  maxLagMs: number
}

/** One queue of GET /api/v1/status. */
export interface StatusQueue {
  id: string
  name: string
  namespace: string
  task: string
  partitions: number
  totalConsumed: number
}

/** One replica of GET /api/v1/status, with its rates over the window. */
export interface StatusWorker {
  serverId: string
  hostname: string
  pid: number
  lastSeen: Timestamp
  pushPerSecond: number
  popPerSecond: number
  ackPerSecond: number
}

/** GET /api/v1/status: the overview. */
export interface StatusAnswer extends SeriesWindow {
  pointCount: number
  throughput: ThroughputPoint[]
  queues: StatusQueue[]
  messages: MessageCounters & {
    /** This replica's requests since it started; zeros for a tenant (docs/security.md). */
    requests: { push: number; pop: number; ack: number }
    /** Requests served per database round trip (for pop: messages per pop request). */
    batchEfficiency: { push: number; pop: number; ack: number }
  }
  leases: { active: number; partitionsWithLeases: number; totalBatchSize: number; totalAcked: number }
  deadLetterQueue: {
    totalMessages: number
    affectedPartitions: number
    topErrors: { error: string; count: number }[]
  }
  workers: StatusWorker[]
  errors: { dbErrors: number; ackFailed: number; dlqMessages: number }
  /** Seconds since the stats snapshot was refreshed; null before the first refresh. */
  statsAge: number | null
}

/** GET /api/v1/status/analytics: pushed messages per bucket. */
export interface StatusAnalyticsAnswer extends TimeRange {
  dataPoints: { timestamp: Timestamp; messages: number }[]
  interval: string
}
