/**
 * The stats cycle (semantics.md 10, STATS_INTERVAL_MS): recompute the stats snapshot under the cluster-wide
 * stats lock, then reload this replica's copy of it whether this replica or another one refreshed. The
 * refresh is one statement in its own transaction (queen.refresh_stats), never part of push, pop or ack.
 */
import type pg from 'pg'
import type { Logger } from 'pino'
import { runQuery } from '../db/pool.js'
import { BackgroundLoop } from './background-loop.js'

/**
 * Rows the refresh wrote per level, and the stale rows it removed (`cleanup`). `partition`: the partitions
 * recomputed (changed since the last refresh, or holding a lease); `queue`: the queue rows they changed;
 * namespace, task, system and consumer rows are rewritten at every refresh.
 */
export interface StatsRefreshCounts {
  partition: number
  queue: number
  namespace: number
  task: number
  system: number
  consumer: number
  cleanup: number
}

/** Outcome of one refresh: skipped when another session held the stats lock. */
export type StatsRefreshResult = { skipped: false; counts: StatsRefreshCounts } | { skipped: true }

interface RefreshRow {
  acquired: boolean
  partition_rows: number
  queue_rows: number
  namespace_rows: number
  task_rows: number
  system_rows: number
  consumer_rows: number
  cleanup_rows: number
}

/** Recomputes the snapshot now, or reports that another instance is doing it. */
export async function refreshStatsSnapshot(pool: pg.Pool): Promise<StatsRefreshResult> {
  const [row] = await runQuery<RefreshRow>(pool, 'statsRefresh')
  if (!row?.acquired) return { skipped: true }
  return {
    skipped: false,
    counts: {
      partition: row.partition_rows,
      queue: row.queue_rows,
      namespace: row.namespace_rows,
      task: row.task_rows,
      system: row.system_rows,
      consumer: row.consumer_rows,
      cleanup: row.cleanup_rows,
    },
  }
}

/** What one cycle does, supplied by the observability factory. */
export interface StatsCycle {
  /** Refreshes the snapshot and reloads this replica's copy. */
  refresh(): Promise<StatsRefreshResult>
  /** Called after every cycle (closes the window of the per-second rates of GET /metrics). */
  afterCycle(): void
}

/**
 * After a refresh the stats loop pauses at least this many times that refresh's duration (and at least
 * STATS_INTERVAL_MS), so with one replica the refresh takes at most a fifth of one PostgreSQL backend's time
 * (each replica paces its own refreshes; another may take the stats lock sooner). Its cost follows the
 * partitions that changed since the last refresh (schema 009): over 100,000 partitions of one message, on a
 * shared 2-core machine, 20 ms with none changed, 65 ms with 1 %, 724 ms with 10 % and 4.1 s with all of
 * them (bench --scale --series stats). When every partition compared its state at every refresh, 78,747
 * partitions took 1-3 s with none changed, and with 10,000 busy partitions the 10 s refreshes cost the data
 * plane a third of its throughput (bench partitions scenario: 1,933 msg/s, 2,835 without refreshes); busy
 * partitions still cost their recomputation. The snapshot's age, reported with every figure read from it,
 * shows the longer pause.
 */
export const STATS_REFRESH_DURATION_FACTOR = 4

/** Creates the stats loop. */
export function statsRefreshJob(cycle: StatsCycle, intervalMs: number, log: Logger): BackgroundLoop {
  return new BackgroundLoop(
    'stats',
    intervalMs,
    async () => {
      const result = await cycle.refresh()
      cycle.afterCycle()
      if (result.skipped) log.debug({ reason: 'another_instance_running' }, 'stats refresh skipped')
    },
    log,
    { durationFactor: STATS_REFRESH_DURATION_FACTOR },
  )
}
