/**
 * Expired-lease reclaim (docs/semantics.md, "Lease renewal and expiry"): every QUEEN_LEASE_RECLAIM_INTERVAL_MS, count a
 * failure for every message delivered under an expired lease, dead-letter those past retryLimit, clear the lease and
 * wake parked pops of the queue. Rows another replica or a running pop holds are skipped (SKIP LOCKED), so replicas can
 * run it concurrently without an election.
 */
import type pg from 'pg'
import type { Logger } from 'pino'
import { runQuery } from '../db/run-query.js'
import type { PopWaiters } from '../engine/pop-waiters.js'
import { BackgroundLoop } from '../../platform/jobs/background-loop.js'
import type { BrokerEvents } from '../observe/broker-events.js'

const LEASES_PER_CYCLE = 1000

interface ReclaimRow {
  tenant: string
  queue_name: string
  partition_name: string
  failures: number
  dead_lettered: number
}

/** Creates the reclaim loop. */
export function leaseReclaimJob(
  pool: pg.Pool,
  waiters: PopWaiters,
  events: BrokerEvents,
  intervalMs: number,
  log: Logger,
): BackgroundLoop {
  return new BackgroundLoop(
    'lease-reclaim',
    intervalMs,
    async () => {
      const rows = await runQuery<ReclaimRow>(pool, 'leaseReclaimExpired', [LEASES_PER_CYCLE])
      for (const row of rows) {
        waiters.wake(row.tenant, row.queue_name, row.partition_name, 'timer')
        if (row.failures > 0) events.emit('failed', row.tenant, row.queue_name, 'lease_expired', row.failures)
        if (row.dead_lettered > 0) events.emit('deadLettered', row.tenant, row.queue_name, row.dead_lettered)
      }
      if (rows.length > 0) {
        log.debug(
          { leases: rows.length, failures: rows.reduce((sum, row) => sum + row.failures, 0) },
          'leases reclaimed',
        )
      }
    },
    log,
  )
}
