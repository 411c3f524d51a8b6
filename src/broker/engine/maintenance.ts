/**
 * Maintenance mode (docs/semantics.md, "Maintenance mode"): push-maintenance sends every push to the spool and holds
 * replay; pop-maintenance answers pops 204 at once and parks long-polls until it ends (the pop engine
 * parks them with the other long-polls and re-checks them when it ends). Both flags live in
 * PostgreSQL: a change is written there first (refused when PostgreSQL is unreachable), applied locally,
 * and broadcast; every replica also re-reads them periodically and on reconnecting.
 */
import type pg from 'pg'
import type { Logger } from 'pino'
import { executeQuery, runQuery } from '../db/run-query.js'
import { DatabaseUnavailableError, classifyPgError } from '../../platform/postgres/pg-errors.js'

/** Which flag. */
export type MaintenanceKind = 'push' | 'pop'
/** Where a change came from (for the `maintenance` log line). */
export type MaintenanceSource = 'api' | 'mesh' | 'database'

const KEYS: Record<MaintenanceKind, string> = { push: 'maintenance', pop: 'pop_maintenance' }

/** The two flags as this replica knows them. */
export class MaintenanceFlags {
  private flags: Record<MaintenanceKind, boolean> = { push: false, pop: false }
  private readonly pool: pg.Pool
  private readonly log: Logger
  private readonly listeners: ((kind: MaintenanceKind, enabled: boolean, source: MaintenanceSource) => void)[] = []

  constructor(pool: pg.Pool, log: Logger) {
    this.pool = pool
    this.log = log
  }

  /** Push-maintenance is on. */
  get push(): boolean {
    return this.flags.push
  }

  /** Pop-maintenance is on. */
  get pop(): boolean {
    return this.flags.pop
  }

  /** Hears every change applied on this replica (broadcast when the source is the API, metrics). */
  onChange(listener: (kind: MaintenanceKind, enabled: boolean, source: MaintenanceSource) => void): void {
    this.listeners.push(listener)
  }

  /** Re-reads both flags from PostgreSQL; PostgreSQL wins on conflict. */
  async load(source: MaintenanceSource = 'database'): Promise<void> {
    const rows = await runQuery<{ key: string; value: unknown }>(this.pool, 'systemStateRead')
    for (const kind of ['push', 'pop'] as const) {
      const row = rows.find((candidate) => candidate.key === KEYS[kind])
      this.apply(kind, row?.value === true, source)
    }
  }

  /** Persists a flag, then applies it here; throws DatabaseUnavailableError when it cannot be persisted. */
  async set(kind: MaintenanceKind, enabled: boolean): Promise<void> {
    try {
      await executeQuery(this.pool, 'systemStateWrite', [KEYS[kind], JSON.stringify(enabled)])
    } catch (error) {
      if (classifyPgError(error) === 'unavailable') throw new DatabaseUnavailableError(error)
      throw error
    }
    this.apply(kind, enabled, 'api')
  }

  /** Applies a flag value locally (from the API, a hint, or a re-read). */
  apply(kind: MaintenanceKind, enabled: boolean, source: MaintenanceSource): void {
    if (this.flags[kind] === enabled) return
    this.flags[kind] = enabled
    this.log.info({ push: this.flags.push, pop: this.flags.pop, source }, 'maintenance')
    for (const listener of this.listeners) listener(kind, enabled, source)
  }
}
