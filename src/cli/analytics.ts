/**
 * `queenctl analytics` (docs/cli.md, "Command reference"): the broker's time series (docs/http-api.md, "Status and
 * analytics") as tables. The window flags are shared (times as docs/cli.md, "Times and seek targets", sent as RFC
 * 3339); each route gets its row type and columns here so the commands stay thin. Series come from the per-minute
 * metrics every replica writes, so a fresh broker answers empty series until its first minute is recorded.
 */
import { Flags } from '@oclif/core'
import { formatBytes, formatDuration } from './format.js'
import type { HttpClient } from './http-client.js'
import type { Column } from './output.js'
import { parseTime } from './times.js'
import type {
  OpCounts,
  ParkedAnswer,
  PostgresStatsAnswer,
  QueueLagRow,
  QueueOpsAnswer,
  RetentionAnswer,
  SeriesWindow,
  StatusAnalyticsAnswer,
  SystemMetricsAnswer,
  SystemPoint,
} from '../wire/index.js'

export type {
  OpCounts,
  ParkedAnswer,
  PostgresStatsAnswer,
  QueueLagRow,
  QueueOpsAnswer,
  RetentionAnswer,
  SeriesWindow,
  SystemPoint,
}
/** GET /api/v1/status/analytics. */
export type OverviewAnswer = StatusAnalyticsAnswer
/** GET /api/v1/analytics/system-metrics (and worker-metrics). */
export type SystemAnswer = SystemMetricsAnswer

/** --from / --to of every series command. */
export const windowFlags = {
  from: Flags.string({ description: 'start of the window: 15m, "2h ago", 2026-01-31, RFC 3339 (default 1h ago)' }),
  to: Flags.string({ description: 'end of the window (same forms as --from; default now)' }),
}

/** --interval of the routes that take a named bucket width. */
export const intervalFlag = Flags.string({
  description: 'bucket width (default: chosen from the window)',
  options: ['minute', 'hour', 'day'],
})

/** --queue of the per-queue series. */
export const queueFilterFlag = Flags.string({ description: 'only this queue' })

/** The window's query parameters, times parsed as docs/cli.md, "Times and seek targets". */
export function windowQuery(flags: { from?: string; to?: string }): Record<string, string | undefined> {
  return {
    from: flags.from === undefined ? undefined : parseTime(flags.from, { flag: '--from' }),
    to: flags.to === undefined ? undefined : parseTime(flags.to, { flag: '--to' }),
  }
}

/** A note for stderr describing the window of an answer. */
export function windowNote(answer: SeriesWindow): string {
  return `${answer.timeRange.from} .. ${answer.timeRange.to}, ${answer.bucketMinutes}-minute buckets`
}

export const OVERVIEW_COLUMNS: Column<OverviewAnswer['dataPoints'][number]>[] = [
  { header: 'TIME', value: (row) => row.timestamp },
  { header: 'MESSAGES', value: (row) => row.messages },
]

export const QUEUE_LAG_COLUMNS: Column<QueueLagRow>[] = [
  { header: 'TIME', value: (row) => row.bucketTime },
  { header: 'QUEUE', value: (row) => row.queueName },
  { header: 'POPS', value: (row) => row.popCount },
  { header: 'AVG LAG', value: (row) => formatDuration(row.avgLagMs) },
  { header: 'MAX LAG', value: (row) => formatDuration(row.maxLagMs) },
]

const OP_COLUMNS: Column<OpCounts>[] = [
  { header: 'QUEUE', value: (row) => row.queueName },
  { header: 'PUSH', value: (row) => row.push },
  { header: 'POP', value: (row) => row.pop },
  { header: 'ACK', value: (row) => row.ack },
  { header: 'FAILED', value: (row) => row.failed },
  { header: 'DLQ', value: (row) => row.dlq },
]

export const QUEUE_OPS_TOTAL_COLUMNS = OP_COLUMNS
export const QUEUE_OPS_SERIES_COLUMNS: Column<QueueOpsAnswer['series'][number]>[] = [
  { header: 'TIME', value: (row) => row.bucketTime },
  ...OP_COLUMNS,
]

/** One (replica, bucket) of the parked pops. */
export interface ParkedRow {
  serverId: string
  bucketTime: string
  parkedPops: number
}

export function parkedRows(answer: ParkedAnswer): ParkedRow[] {
  return answer.replicas.flatMap((replica) => replica.series.map((point) => ({ serverId: replica.serverId, ...point })))
}

export const PARKED_COLUMNS: Column<ParkedRow>[] = [
  { header: 'TIME', value: (row) => row.bucketTime },
  { header: 'SERVER', value: (row) => row.serverId },
  { header: 'PARKED POPS', value: (row) => row.parkedPops },
]

export const RETENTION_SERIES_COLUMNS: Column<RetentionAnswer['series'][number]>[] = [
  { header: 'TIME', value: (row) => row.bucketTime },
  { header: 'KIND', value: (row) => row.kind },
  { header: 'DELETED', value: (row) => row.deleted },
]

/** The retention totals as rows: what each cleanup removed over the window. */
export function retentionTotals(answer: RetentionAnswer): { kind: string; deleted: number; what: string }[] {
  return [
    { kind: 'retention', deleted: answer.totals.retention, what: 'messages older than retentionSeconds' },
    {
      kind: 'completedRetention',
      deleted: answer.totals.completedRetention,
      what: 'completed messages older than completedRetentionSeconds',
    },
    { kind: 'eviction', deleted: answer.totals.eviction, what: 'messages evicted after maxWaitTimeSeconds' },
    { kind: 'partitions', deleted: answer.totals.partitions, what: 'empty partitions removed' },
  ]
}

export const RETENTION_TOTAL_COLUMNS: Column<ReturnType<typeof retentionTotals>[number]>[] = [
  { header: 'KIND', value: (row) => row.kind },
  { header: 'DELETED', value: (row) => row.deleted },
  { header: 'WHAT', value: (row) => row.what, wide: true },
]

export const SYSTEM_COLUMNS: Column<SystemPoint>[] = [
  { header: 'TIME', value: (row) => row.timestamp },
  { header: 'SERVER', value: (row) => row.serverId },
  { header: 'CPU', value: (row) => `${(row.cpuUserPercent + row.cpuSystemPercent).toFixed(1)}%` },
  { header: 'RSS', value: (row) => formatBytes(row.rssBytes) },
  { header: 'LOOP LAG P99', value: (row) => `${row.eventLoopLagP99Ms}ms` },
  { header: 'POOL', value: (row) => `${row.poolTotal - row.poolIdle}/${row.poolTotal}` },
  { header: 'WAITING', value: (row) => row.poolWaiting },
  { header: 'REQUESTS', value: (row) => row.requests },
  { header: 'HOST', value: (row) => row.hostname, wide: true },
  { header: 'PID', value: (row) => String(row.pid), wide: true },
  { header: 'HEAP', value: (row) => formatBytes(row.heapUsedBytes), wide: true },
  { header: 'PARKED POPS', value: (row) => row.parkedPops, wide: true },
]

/** The flags of system and worker. */
export const systemFlags = {
  ...windowFlags,
  hostname: Flags.string({ description: 'only the replicas on this host' }),
  'worker-id': Flags.string({ description: 'only this replica (its server id, QUEEN_SERVER_ID)' }),
}

/** Reads a per-replica series (system-metrics or worker-metrics). */
export function fetchSystemSeries(
  client: HttpClient,
  route: 'system-metrics' | 'worker-metrics',
  flags: { from?: string; to?: string; hostname?: string; 'worker-id'?: string },
): Promise<SystemAnswer> {
  // An operator route: it refuses the tenancy header (issue 40).
  return client.get<SystemAnswer>(`/api/v1/analytics/${route}`, {
    query: { ...windowQuery(flags), hostname: flags.hostname, workerId: flags['worker-id'] },
    tenant: false,
  })
}

const percent = (value: number | null | undefined) => (value === null || value === undefined ? null : `${value}%`)

/** The key/value summary of postgres-stats; sections the broker's role could not read are named. */
export function postgresSummary(stats: PostgresStatsAnswer): Record<string, unknown> {
  const unavailable = Object.entries(stats)
    .filter(([, value]) => value === null)
    .map(([key]) => key)
  const database = stats.databaseCache
  return {
    ...(database
      ? {
          database: database.database,
          cacheHitRatio: percent(database.hitRatio),
          connections: database.connections,
          commits: database.commits,
          rollbacks: database.rollbacks,
          deadlocks: database.deadlocks,
        }
      : {}),
    ...(stats.cacheSummary
      ? {
          tableHitRatio: percent(stats.cacheSummary.tableHitRatio),
          indexHitRatio: percent(stats.cacheSummary.indexHitRatio),
        }
      : {}),
    ...(stats.bufferConfig
      ? {
          maxConnections: stats.bufferConfig.maxConnections,
          sharedBuffers: formatBytes(stats.bufferConfig.sharedBuffersBytes),
        }
      : {}),
    ...(stats.autovacuumStatus ? { autovacuum: stats.autovacuumStatus.enabled ? 'on' : 'off' } : {}),
    ...(stats.activeQueries ? { activeQueries: stats.activeQueries.length } : {}),
    ...(stats.tableSizes
      ? {
          largestTables: [...stats.tableSizes]
            .sort((a, b) => b.totalBytes - a.totalBytes)
            .slice(0, 5)
            .map((row) => `${row.table} ${formatBytes(row.totalBytes)} (~${row.estimatedRows} rows)`),
        }
      : {}),
    ...(stats.deadTuples
      ? {
          mostDeadTuples: [...stats.deadTuples]
            .sort((a, b) => b.deadTuples - a.deadTuples)
            .slice(0, 3)
            .filter((row) => row.deadTuples > 0)
            .map((row) => `${row.table} ${row.deadTuples} dead`),
        }
      : {}),
    ...(unavailable.length > 0 ? { unavailable } : {}),
  }
}
