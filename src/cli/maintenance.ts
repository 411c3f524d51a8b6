/**
 * The maintenance flags as `queenctl maintenance` sees them (docs/cli.md, "queenctl maintenance"): read and set over
 * HTTP (`/api/v1/system/maintenance[/pop]`, docs/http-api.md, "System"), or directly in PostgreSQL (`--direct`): the
 * flag row of `queen.system_state` written with the broker's own statement, and a hint NOTIFYed on `queen_hints` in the
 * same transaction, which brokers apply on receipt or at their next periodic re-read.
 */
import pg from 'pg'
import { HINT_CHANNEL } from '../broker/db/hint-channel.js'
import { runQuery } from '../broker/db/run-query.js'
import { EXIT, UserError } from './errors.js'
import type { HttpClient } from './http-client.js'
import type { MaintenanceAnswer, MaintenanceSetAnswer, PopMaintenanceAnswer } from '../wire/index.js'

/** Which flag: push-maintenance (pushes spooled) or pop-maintenance (pops answered 204). */
export type MaintenanceKind = 'push' | 'pop'

/** The maintenance state a command prints; fields the source does not know are absent. */
export interface MaintenanceState {
  /** Push-maintenance is on. Absent under `status --pop`. */
  push?: boolean
  /** Pop-maintenance is on. */
  pop: boolean
  /** Records in the answering broker's spool awaiting replay. */
  buffered?: number
  /** The answering broker's spool can take records. */
  bufferHealthy?: boolean
  /** Records in the answering broker's quarantine. */
  quarantined?: number
  /** PostgreSQL is reachable from the answering broker. */
  dbHealthy?: boolean
}

/** The outcome of `maintenance on|off`: the resulting state and what changed. */
export interface MaintenanceChange extends MaintenanceState {
  /** The flag that was set. */
  mode: MaintenanceKind
  /** Its requested value. */
  enabled: boolean
  /** False when it already had that value (setting it again is a success). */
  changed: boolean
  /** True for `--dry-run`: nothing was written. */
  dryRun: boolean
  /** `http` through a broker, `postgres` with `--direct`. */
  via: 'http' | 'postgres'
  /** The broker's message, or ours for `--direct` and `--dry-run`. */
  message: string
}

const PUSH_PATH = '/api/v1/system/maintenance'
const POP_PATH = '/api/v1/system/maintenance/pop'
/** The maintenance routes are operator-only: a tenancy header would be refused with 403. */
const OPERATOR = { tenant: false } as const

/** Both flags and the spool figures of the answering broker. */
export async function fetchMaintenance(client: HttpClient): Promise<MaintenanceState> {
  const answer = await client.get<MaintenanceAnswer>(PUSH_PATH, OPERATOR)
  return {
    push: answer.maintenanceMode === true,
    pop: answer.popMaintenanceMode === true,
    buffered: answer.bufferedMessages ?? 0,
    bufferHealthy: answer.bufferHealthy !== false,
    quarantined: answer.bufferStats?.failedCount ?? 0,
    dbHealthy: answer.bufferStats?.dbHealthy ?? true,
  }
}

/** The pop flag alone (`status --pop`). */
export async function fetchPopMaintenance(client: HttpClient): Promise<MaintenanceState> {
  const answer = await client.get<PopMaintenanceAnswer>(POP_PATH, OPERATOR)
  return { pop: answer.popMaintenanceMode === true }
}

function plannedMessage(kind: MaintenanceKind, enabled: boolean, changed: boolean): string {
  const state = enabled ? 'on' : 'off'
  return changed ? `would turn ${kind} maintenance ${state}` : `${kind} maintenance is already ${state}`
}

/**
 * Sets a flag through the broker (idempotent: already set is a success) and returns the resulting state:
 * the full status read after the change, with the flag and spool figures of the change's own answer,
 * which are authoritative even if a load balancer sends the second read to another replica.
 */
export async function setMaintenance(
  client: HttpClient,
  kind: MaintenanceKind,
  enabled: boolean,
  options: { dryRun: boolean },
): Promise<MaintenanceChange> {
  const before = await fetchMaintenance(client)
  const changed = before[kind] !== enabled
  const base = { mode: kind, enabled, changed, via: 'http' as const }
  if (options.dryRun) return { ...before, ...base, dryRun: true, message: plannedMessage(kind, enabled, changed) }
  if (kind === 'push') {
    const answer = await client.post<MaintenanceSetAnswer>(PUSH_PATH, { enabled }, OPERATOR)
    const after = await fetchMaintenance(client)
    return {
      ...after,
      push: answer.maintenanceMode === true,
      buffered: answer.bufferedMessages ?? after.buffered,
      bufferHealthy: answer.bufferHealthy ?? after.bufferHealthy,
      ...base,
      dryRun: false,
      message: answer.message,
    }
  }
  const answer = await client.post<PopMaintenanceAnswer>(POP_PATH, { enabled }, OPERATOR)
  const after = await fetchMaintenance(client)
  return { ...after, pop: answer.popMaintenanceMode === true, ...base, dryRun: false, message: answer.message }
}

const KEYS: Record<MaintenanceKind, string> = { push: 'maintenance', pop: 'pop_maintenance' }
const HINTS: Record<MaintenanceKind, string> = { push: 'MAINTENANCE_MODE_SET', pop: 'POP_MAINTENANCE_MODE_SET' }

function pgFailure(error: unknown): UserError {
  if (error instanceof UserError) return error
  const code = (error as { code?: string }).code
  if (code === '42P01' || code === '3F000') {
    return new UserError('this database has no queen schema', {
      exitCode: EXIT.server,
      cause: error,
      hint: 'point --pg-url at the broker database, or apply the schema with queenctl schema apply',
    })
  }
  return new UserError(`PostgreSQL: ${(error as Error).message}`, { exitCode: EXIT.server, cause: error })
}

async function withClient<T>(config: pg.ClientConfig, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ ...config, application_name: 'queenctl maintenance' })
  client.on('error', () => undefined)
  try {
    await client.connect()
  } catch (error) {
    await client.end().catch(() => undefined)
    throw new UserError(`cannot connect to PostgreSQL: ${(error as Error).message}`, {
      exitCode: EXIT.server,
      cause: error,
      hint: 'check --pg-url or the PG_* variables',
    })
  }
  try {
    return await work(client)
  } catch (error) {
    throw pgFailure(error)
  } finally {
    await client.end().catch(() => undefined)
  }
}

async function readFlags(client: pg.ClientBase): Promise<MaintenanceState> {
  const rows = await runQuery<{ key: string; value: unknown }>(client, 'systemStateRead')
  const flag = (kind: MaintenanceKind) => rows.find((row) => row.key === KEYS[kind])?.value === true
  return { push: flag('push'), pop: flag('pop') }
}

/** Both flags as PostgreSQL holds them (`status --direct`). */
export function readMaintenanceDirect(config: pg.ClientConfig): Promise<MaintenanceState> {
  return withClient(config, readFlags)
}

/**
 * Writes a flag into `queen.system_state` with the broker's statement and NOTIFYs the hint brokers
 * listen for, in one transaction (the notification is delivered on commit). Idempotent.
 */
export function setMaintenanceDirect(
  config: pg.ClientConfig,
  kind: MaintenanceKind,
  enabled: boolean,
  options: { dryRun: boolean },
): Promise<MaintenanceChange> {
  return withClient(config, async (client) => {
    const before = await readFlags(client)
    const changed = before[kind] !== enabled
    const base = { mode: kind, enabled, changed, via: 'postgres' as const }
    if (options.dryRun) return { ...before, ...base, dryRun: true, message: plannedMessage(kind, enabled, changed) }
    await client.query('BEGIN')
    try {
      await runQuery(client, 'systemStateWrite', [KEYS[kind], JSON.stringify(enabled)])
      const hint = { type: HINTS[kind], enabled, from: 'queenctl', ts: Date.now() }
      await client.query('SELECT pg_notify($1, $2)', [HINT_CHANNEL, JSON.stringify(hint)])
      await client.query('COMMIT')
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined)
      throw error
    }
    const after = await readFlags(client)
    return {
      ...after,
      ...base,
      dryRun: false,
      message: `${kind} maintenance ${enabled ? 'on' : 'off'} in PostgreSQL${changed ? '' : ' (it already was)'}`,
    }
  })
}

/** The key/value view of `maintenance status|on|off` in table mode (`push: on`, `buffered: 12`, ...). */
export function maintenanceDisplay(state: MaintenanceState): Record<string, string | number> {
  const onOff = (value: boolean) => (value ? 'on' : 'off')
  const display: Record<string, string | number> = {}
  if (state.push !== undefined) display.push = onOff(state.push)
  display.pop = onOff(state.pop)
  if (state.buffered !== undefined) display.buffered = state.buffered
  if (state.bufferHealthy !== undefined) display.buffer = state.bufferHealthy ? 'healthy' : 'unhealthy'
  if (state.quarantined !== undefined) display.quarantined = state.quarantined
  if (state.dbHealthy !== undefined) display.database = state.dbHealthy ? 'reachable' : 'unreachable'
  return display
}

/** What `--direct` says on stderr after writing a flag. */
export const DIRECT_NOTE =
  'brokers apply it when the queen_hints notification reaches them, or at their next re-read (every QUEEN_STATE_REFRESH_MS, default 5000 ms)'

/** The stderr line of a change: the broker's message, and whether the flag already had that value. */
export function changeConfirmation(change: MaintenanceChange): string {
  if (change.dryRun) return change.message
  const state = change.enabled ? 'on' : 'off'
  return change.changed ? change.message : `${change.mode} maintenance was already ${state}: ${change.message}`
}
