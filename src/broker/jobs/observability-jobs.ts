/**
 * The background jobs of observability: the stats snapshot refresh (cluster-wide under the stats lock),
 * the per-minute metrics writer, and the rates/sizes log blocks. Built over the broker's Observability;
 * the jobs part starts them after `ready`.
 */
import type pg from 'pg'
import type { Logger } from 'pino'
import type { Observability } from '../observe/observability.js'
import type { BackgroundJob } from '../../platform/jobs/background-loop.js'
import { MetricsFlushJob } from './metrics-flush-job.js'
import { statsLogJob } from './stats-log-job.js'
import { refreshStatsSnapshot, statsRefreshJob, type StatsRefreshResult } from './stats-refresh-job.js'

/** Inputs of {@link createObservabilityJobs}. */
export interface ObservabilityJobsOptions {
  pool: pg.Pool
  waiters: { readonly parked: number }
  serverId: string
  /** Stats snapshot refresh, ms (`STATS_INTERVAL_MS`). */
  statsIntervalMs: number
  /** Per-minute metrics write, s (`METRICS_AGGREGATE_INTERVAL_S`). */
  metricsAggregateIntervalSeconds: number
  /** `rates`/`sizes` blocks, ms; 0 = off (`QUEEN_LOG_STATS_INTERVAL_MS`). */
  logStatsIntervalMs: number
  /** The broker's root logger: jobs log through children, the rates/sizes lines through it directly. */
  log: Logger
}

/** The jobs, and the refresh they run. */
export interface ObservabilityJobs {
  /** Refreshes the snapshot now (route 35) and reloads the copy; skipped while another instance refreshes. */
  refreshStats(): Promise<StatsRefreshResult>
  /** The stats cycle (STATS_INTERVAL_MS, cluster-wide under the stats lock). */
  statsJob: BackgroundJob
  /** The per-minute metrics writer (METRICS_AGGREGATE_INTERVAL_S, per replica). */
  metricsJob: BackgroundJob
  /** The rates/sizes blocks (QUEEN_LOG_STATS_INTERVAL_MS); undefined when turned off. */
  logJob: BackgroundJob | undefined
  /** Every job above, for the server to start after `ready` and stop on shutdown. */
  jobs: BackgroundJob[]
}

function checkInterval(name: string, value: number, allowZero: boolean): number {
  if (!Number.isFinite(value) || value < 0 || (!allowZero && value === 0)) {
    throw new Error(`${name} must be ${allowZero ? '>= 0' : '> 0'}, got ${value}`)
  }
  return value
}

/** Builds the observability jobs of one broker; throws on a bad interval (at boot, not at the first cycle). */
export function createObservabilityJobs(
  observability: Observability,
  options: ObservabilityJobsOptions,
): ObservabilityJobs {
  const statsIntervalMs = checkInterval('statsIntervalMs', options.statsIntervalMs, false)
  const metricsSeconds = checkInterval(
    'metricsAggregateIntervalSeconds',
    options.metricsAggregateIntervalSeconds,
    false,
  )
  const logStatsIntervalMs = checkInterval('logStatsIntervalMs', options.logStatsIntervalMs, true)
  const { pool, waiters, log } = options
  const { collector, stats, metrics, sampler } = observability

  const refreshStats = async (signal?: AbortSignal): Promise<StatsRefreshResult> => {
    const result = await refreshStatsSnapshot(pool, signal, log)
    await stats.reload(pool)
    return result
  }
  const statsJob = statsRefreshJob(
    { refresh: refreshStats, afterCycle: () => collector.markRates() },
    statsIntervalMs,
    log,
  )
  const metricsJob = new MetricsFlushJob({ pool, collector, sampler, serverId: options.serverId }, metricsSeconds, log)
  const gaugeValue = async (gauge: { get(): Promise<{ values: { value: number }[] }> }) =>
    (await gauge.get()).values[0]?.value ?? 0
  const logJob =
    logStatsIntervalMs > 0
      ? statsLogJob(
          {
            collector,
            stats,
            pool,
            waiters,
            spool: async () => ({
              records: await gaugeValue(metrics.spool.records),
              bytes: await gaugeValue(metrics.spool.bytes),
            }),
          },
          logStatsIntervalMs,
          log,
        )
      : undefined
  return {
    refreshStats,
    statsJob,
    metricsJob,
    logJob,
    jobs: [statsJob, metricsJob, ...(logJob ? [logJob] : [])],
  }
}
