/**
 * The periodic `rates` and `sizes` log blocks (docs/operations.md, "Rates and sizes"), every
 * QUEEN_LOG_STATS_INTERVAL_MS on each replica (0 = off: the factory then creates no such job). Reads only memory: the
 * interval counters, the stats snapshot copy, the pool, the parked pops and the spool gauges.
 */
import type { Logger } from 'pino'
import { ratesFields, sizesFields } from '../observe/log-blocks.js'
import type { MetricsCollector } from '../observe/metrics-collector.js'
import type { StatsView } from '../observe/stats-view.js'
import type { PoolCounts } from '../observe/system-sampler.js'
import { BackgroundLoop } from '../../platform/jobs/background-loop.js'

/** What the blocks read. */
export interface StatsLogDeps {
  collector: MetricsCollector
  stats: StatsView
  pool: PoolCounts
  waiters: { readonly parked: number }
  /** Spool records awaiting replay and their bytes on this replica. */
  spool: () => Promise<{ records: number; bytes: number }>
}

/** Logs one `rates` and one `sizes` line through `log` (the broker's root logger: the lines carry no component). */
export async function logStatsBlocks(deps: StatsLogDeps, log: Logger): Promise<void> {
  log.info(ratesFields(deps.collector.interval.take()), 'rates')
  const snapshot = deps.stats.system
  log.info(
    sizesFields({
      snapshot,
      statsAgeSeconds: deps.stats.ageSeconds(),
      parkedPops: deps.waiters.parked,
      spool: await deps.spool(),
      pool: deps.pool,
    }),
    'sizes',
  )
}

/** Creates the log loop. */
export function statsLogJob(deps: StatsLogDeps, intervalMs: number, log: Logger): BackgroundLoop {
  return new BackgroundLoop('stats-log', intervalMs, () => logStatsBlocks(deps, log), log)
}
