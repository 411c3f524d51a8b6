/** Where a parked pop's wake came from: a label of `queen_pop_wakeups_total` and an event of BrokerEvents. */

/** Every wake source, for counters that should show all of them from the start. */
export const WAKE_SOURCES = ['local', 'mesh', 'pg_notify', 'timer'] as const

/** Where a wake came from (for metrics). */
export type WakeSource = (typeof WAKE_SOURCES)[number]
