/** The analytics series (docs/http-api.md, "Status and analytics"). */
import type { SeriesWindow, Timestamp } from './common.js'

/** One point of GET /api/v1/analytics/system-metrics (and worker-metrics): one replica in one bucket. */
export interface SystemPoint {
  timestamp: Timestamp
  serverId: string
  hostname: string
  pid: number
  /** CPU time in user mode over wall time since the previous sample, % of one core. */
  cpuUserPercent: number
  /** CPU time in kernel mode over wall time since the previous sample, % of one core. */
  cpuSystemPercent: number
  rssBytes: number
  heapUsedBytes: number
  /** 99th percentile of the event-loop delay since the previous sample, ms (0 while not monitoring). */
  eventLoopLagP99Ms: number
  poolTotal: number
  poolIdle: number
  poolWaiting: number
  requests: number
  parkedPops: number
}

/** GET /api/v1/analytics/system-metrics. */
export interface SystemMetricsAnswer extends SeriesWindow {
  series: SystemPoint[]
}

/** One row of GET /api/v1/analytics/queue-lag (the route answers a bare array of them). */
export interface QueueLagRow {
  queueName: string
  popCount: number
  avgLagMs: number
  maxLagMs: number
  bucketTime: Timestamp
}

/** Push, pop, ack, failed and DLQ counts of one queue. */
export interface OpCounts {
  queueName: string
  push: number
  pop: number
  ack: number
  failed: number
  dlq: number
}

/** GET /api/v1/analytics/queue-ops: the per-bucket series and each queue's totals over the window. */
export interface QueueOpsAnswer extends SeriesWindow {
  series: (OpCounts & { bucketTime: Timestamp })[]
  queues: OpCounts[]
}

/** GET /api/v1/analytics/queue-parked-replicas. */
export interface ParkedAnswer extends SeriesWindow {
  replicas: { serverId: string; series: { bucketTime: Timestamp; parkedPops: number }[] }[]
}

/** What a retention history row removed. */
export type RetentionKind = 'retention' | 'completed' | 'eviction' | 'partitions'

/** GET /api/v1/analytics/retention. */
export interface RetentionAnswer extends SeriesWindow {
  series: { bucketTime: Timestamp; kind: RetentionKind; deleted: number }[]
  totals: { retention: number; completedRetention: number; eviction: number; partitions: number }
}

/** One table's (or index's) cache figures. */
export interface CacheItem {
  table: string
  index?: string
  blocksHit: number
  blocksRead: number
  hitRatio: number | null
}

/**
 * GET /api/v1/analytics/postgres-stats. Each section is null when the broker's role may not read it (or the
 * server version lacks the view).
 */
export interface PostgresStatsAnswer {
  databaseCache: {
    database: string
    blocksHit: number
    blocksRead: number
    hitRatio: number | null
    connections: number
    commits: number
    rollbacks: number
    deadlocks: number
  } | null
  tableCache: CacheItem[] | null
  indexCache: CacheItem[] | null
  cacheSummary: {
    tableHitRatio: number | null
    indexHitRatio: number | null
    tableBlocksHit: number
    tableBlocksRead: number
    indexBlocksHit: number
    indexBlocksRead: number
  } | null
  deadTuples:
    | {
        table: string
        liveTuples: number
        deadTuples: number
        deadRatio: number | null
        lastVacuum: Timestamp | null
        lastAutovacuum: Timestamp | null
      }[]
    | null
  hotUpdates: { table: string; updates: number; hotUpdates: number; hotRatio: number | null }[] | null
  activeQueries:
    | {
        pid: number
        user: string | null
        application: string | null
        state: string | null
        waitEventType: string | null
        waitEvent: string | null
        durationMs: number | null
        query: string | null
      }[]
    | null
  autovacuumStatus: {
    enabled: boolean
    naptimeSeconds: number
    maxWorkers: number
    vacuumScaleFactor: number
    tables: {
      table: string
      lastAutovacuum: Timestamp | null
      lastAutoanalyze: Timestamp | null
      autovacuumCount: number
      autoanalyzeCount: number
      modifiedSinceAnalyze: number
    }[]
  } | null
  bufferConfig: {
    sharedBuffersBytes: number | null
    effectiveCacheSizeBytes: number | null
    workMemBytes: number | null
    maintenanceWorkMemBytes: number | null
    walBuffersBytes: number | null
    maxConnections: number
  } | null
  bufferUsage: {
    buffersClean: number
    maxWrittenClean: number
    buffersAllocated: number
    statsReset: Timestamp | null
  } | null
  tableSizes:
    | { table: string; totalBytes: number; tableBytes: number; indexBytes: number; estimatedRows: number }[]
    | null
}
