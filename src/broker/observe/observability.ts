/**
 * Everything that watches the broker, built in one place: the event collector (per-minute counters, rates
 * block, totals), the Prometheus registry, the stats snapshot copy and the system sampler. The background
 * jobs that keep them in PostgreSQL and in the log are built over it in `jobs/observability-jobs.ts`.
 */
import type pg from 'pg'
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
  /** Per-queue Prometheus series before folding into `_other` (`QUEEN_METRICS_MAX_QUEUES`). */
  metricsMaxQueues: number
  /** Add `tenant` next to every `queue` label (tenancy on); default false. */
  tenantLabels?: boolean
}

/** The broker's observability. */
export interface Observability {
  /** Prometheus families and registry (`GET /metrics/prometheus`). */
  metrics: BrokerMetrics
  /** Event counters: per-minute, rates-block interval, totals since start. */
  collector: MetricsCollector
  /** This replica's copy of the stats snapshot totals. */
  stats: StatsView
  /** System figures (CPU, memory, event loop, pool) for the per-minute metrics rows. */
  sampler: SystemSampler
  /** Stops observing events (the jobs are stopped by whoever started them). */
  close(): void
}

/** Builds the observability of one broker. */
export function createObservability(options: ObservabilityOptions): Observability {
  const { pool, events, waiters } = options
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
  return {
    metrics,
    collector,
    stats,
    sampler: new SystemSampler(pool, waiters),
    close() {
      unobserve()
      collector.close()
    },
  }
}
