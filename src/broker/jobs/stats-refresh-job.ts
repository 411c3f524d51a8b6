/**
 * The stats cycle (docs/semantics.md, "Retention, eviction and cleanup", STATS_INTERVAL_MS): recompute the stats
 * snapshot under the cluster-wide stats lock, then reload this replica's copy of it whether this replica or another one
 * refreshed. The refresh is one statement in its own transaction (queen.refresh_stats), never part of push, pop or ack.
 */
import type pg from 'pg'
import type { Logger } from 'pino'
import { inTransaction } from '../../platform/postgres/pool.js'
import { SQL } from '../db/queries/index.js'
import { BackgroundLoop } from '../../platform/jobs/background-loop.js'

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

/**
 * How long one refresh may run, ms, whatever DB_STATEMENT_TIMEOUT says. A refresh with no earlier one to
 * start from (the first on a database, or after an upgrade) recomputes every partition: 11 s over 100,000
 * drained partitions on this 2-core machine, past 30 s on the scale bench's database of 200,000 partitions and
 * 6 million messages. Cut at the statement timeout, it would fail the same way at every cycle and the snapshot
 * would never exist. It takes no row locks; while it runs it holds back vacuum and the ready horizons of
 * wildcard pops (schema 015), as any long transaction does.
 */
export const STATS_REFRESH_TIMEOUT_MS = 600_000

/** How often a cancel is sent again while the refresh has not ended (one sent between statements is ignored). */
const CANCEL_REPEAT_MS = 500

/**
 * Recomputes the snapshot now, or reports that another instance is doing it. An abort of `signal` cancels
 * the refresh where it runs (pg_cancel_backend, repeated until the transaction has ended) and the call
 * rejects with `signal.reason`: the stats loop aborts it at shutdown, so a refresh that recomputes every
 * partition of a large database does not hold the drain for QUEEN_SHUTDOWN_TIMEOUT_MS and then go on
 * running in PostgreSQL after the broker has gone. Nothing is lost: the next refresh starts from the last
 * committed one. A connection that was cancelled is closed, never returned to the pool, in case a cancel
 * landed on its next statement; none is sent once the connection has left the transaction.
 */
export async function refreshStatsSnapshot(
  pool: pg.Pool,
  signal?: AbortSignal,
  log?: Logger,
): Promise<StatsRefreshResult> {
  signal?.throwIfAborted()
  let backendPid: number | undefined
  let repeat: NodeJS.Timeout | undefined
  const sendCancel = () => {
    if (backendPid === undefined) return
    pool.query('SELECT pg_cancel_backend($1)', [backendPid]).catch((error: unknown) => {
      log?.warn({ err: error, pid: backendPid }, 'stats refresh: the cancel could not be sent')
    })
  }
  const cancel = () => {
    sendCancel()
    repeat = setInterval(sendCancel, CANCEL_REPEAT_MS)
  }
  signal?.addEventListener('abort', cancel, { once: true })
  try {
    const row = await inTransaction(
      pool,
      async (client) => {
        // One round trip: the backend to cancel, and the refresh's own statement timeout.
        const session = await client.query<{ pid: number }>(
          `SELECT pg_backend_pid() AS pid, set_config('statement_timeout', '${STATS_REFRESH_TIMEOUT_MS}', true)`,
        )
        backendPid = session.rows[0]?.pid
        signal?.throwIfAborted()
        // pg reads a per-query query_timeout (the pool's own is DB_STATEMENT_TIMEOUT + 1 s); its types omit it.
        const query: pg.QueryConfig & { query_timeout: number } = {
          text: SQL.statsRefresh,
          query_timeout: STATS_REFRESH_TIMEOUT_MS + 1000,
        }
        return (await client.query<RefreshRow>(query)).rows[0]
      },
      {
        // Read as the connection leaves the transaction: from here on no cancel may reach it.
        discardIf: () => {
          backendPid = undefined
          return signal?.aborted === true
        },
      },
    )
    return countsOf(row)
  } catch (error) {
    // Cancelled at shutdown: the caller sees the abort, not the statement's cancel error.
    if (signal?.aborted) throw signal.reason
    throw error
  } finally {
    signal?.removeEventListener('abort', cancel)
    clearInterval(repeat)
  }
}

function countsOf(row: RefreshRow | undefined): StatsRefreshResult {
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
  /** Refreshes the snapshot and reloads this replica's copy; an abort of `signal` cancels the refresh. */
  refresh(signal?: AbortSignal): Promise<StatsRefreshResult>
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
    async (signal) => {
      const result = await cycle.refresh(signal)
      cycle.afterCycle()
      if (result.skipped) log.debug({ reason: 'another_instance_running' }, 'stats refresh skipped')
    },
    log,
    { durationFactor: STATS_REFRESH_DURATION_FACTOR },
  )
}
