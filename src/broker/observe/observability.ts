/**
 * Everything that watches the broker, built in one place: the event collector (per-minute counters, rates
 * block, totals), the Prometheus registry, the stats snapshot copy, and the background jobs that keep them
 * in PostgreSQL and in the log. `createServices` builds one per broker; the jobs part starts `jobs`.
 */
import type pg from 'pg'
import type { Logger } from 'pino'
import type { BackgroundService } from '../jobs/background-loop.js'
import { MetricsFlushJob } from '../jobs/metrics-flush-job.js'
import { statsLogJob } from '../jobs/stats-log-job.js'
import { refreshStatsSnapshot, statsRefreshJob, type StatsRefreshResult } from '../jobs/stats-refresh-job.js'
import type { BrokerEvents } from './broker-events.js'
import { MetricsCollector } from './metrics-collector.js'
import { BrokerMetrics } from './prometheus-metrics.js'
import { StatsView } from './stats-view.js'
import { SystemSampler } from './system-sampler.js'

/** Inputs of {@link createObservability}. */
export interface ObservabilityOptions {
  pool: pg.Pool
  events: BrokerEvents
  waiters: { readonly parked: number }
  serverId: string
  version: string
  /** Process start, epoch ms. */
  startedAt: number
  /** Readiness round trip (the health probe's dedicated connection) for `queen_db_healthy`. */
  checkDatabase: () => Promise<boolean>
  /** Stats snapshot refresh, ms (`STATS_INTERVAL_MS`). */
  statsIntervalMs: number
  /** Per-minute metrics write, s (`METRICS_AGGREGATE_INTERVAL_S`). */
  metricsAggregateIntervalSeconds: number
  /** `rates`/`sizes` blocks, ms; 0 = off (`QUEEN_LOG_STATS_INTERVAL_MS`). */
  logStatsIntervalMs: number
  /** Per-queue Prometheus series before folding into `_other` (`QUEEN_METRICS_MAX_QUEUES`). */
  metricsMaxQueues: number
  /** Add `tenant` next to every `queue` label (tenancy on); default false. */
  tenantLabels?: boolean
  /** The broker's root logger: jobs log through children, the rates/sizes lines through it directly. */
  log: Logger
}

/** The broker's observability. */
export interface Observability {
  /** Prometheus families and registry (`GET /metrics/prometheus`). */
  metrics: BrokerMetrics
  /** Event counters: per-minute, rates-block interval, totals since start. */
  collector: MetricsCollector
  /** This replica's copy of the stats snapshot totals. */
  stats: StatsView
  /** Refreshes the snapshot now (route 35) and reloads the copy; skipped while another instance refreshes. */
  refreshStats(): Promise<StatsRefreshResult>
  /** The stats cycle (STATS_INTERVAL_MS, cluster-wide under the stats lock). */
  statsJob: BackgroundService
  /** The per-minute metrics writer (METRICS_AGGREGATE_INTERVAL_S, per replica). */
  metricsJob: BackgroundService
  /** The rates/sizes blocks (QUEEN_LOG_STATS_INTERVAL_MS); undefined when turned off. */
  logJob: BackgroundService | undefined
  /** Every job above, for the server to start after `ready` and stop on shutdown. */
  jobs: BackgroundService[]
  /** Stops observing events (the jobs are stopped by whoever started them). */
  close(): void
}

function checkInterval(name: string, value: number, allowZero: boolean): number {
  if (!Number.isFinite(value) || value < 0 || (!allowZero && value === 0)) {
    throw new Error(`${name} must be ${allowZero ? '>= 0' : '> 0'}, got ${value}`)
  }
  return value
}

/** Builds the observability of one broker; throws on a bad interval (at boot, not at the first cycle). */
export function createObservability(options: ObservabilityOptions): Observability {
  const statsIntervalMs = checkInterval('statsIntervalMs', options.statsIntervalMs, false)
  const metricsSeconds = checkInterval(
    'metricsAggregateIntervalSeconds',
    options.metricsAggregateIntervalSeconds,
    false,
  )
  const logStatsIntervalMs = checkInterval('logStatsIntervalMs', options.logStatsIntervalMs, true)
  const { pool, events, waiters, log } = options
  const stats = new StatsView()
  const collector = new MetricsCollector(events, options.startedAt)
  const metrics = new BrokerMetrics({
    serverId: options.serverId,
    version: options.version,
    startedAt: options.startedAt,
    maxQueues: options.metricsMaxQueues,
    tenantLabels: options.tenantLabels ?? false,
    pool,
    waiters,
    checkDatabase: options.checkDatabase,
    stats,
  })
  const unobserve = metrics.observe(events)
  const sampler = new SystemSampler(pool, waiters)

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
    metrics,
    collector,
    stats,
    refreshStats,
    statsJob,
    metricsJob,
    logJob,
    jobs: [statsJob, metricsJob, ...(logJob ? [logJob] : [])],
    close() {
      unobserve()
      collector.close()
    },
  }
}
