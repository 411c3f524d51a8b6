/** Quotas and rate limits in the gateway's database (docs/gateway.md, "Quotas and rate limits"). */
import type pg from 'pg'
import { gatewayQuery } from '../store/run.js'
import { findTenant, TenantError } from '../store/tenants.js'
import { NO_KEY_LIMITS, NO_TENANT_LIMITS, type KeyLimits, type TenantLimits } from './limit-settings.js'

interface TenantLimitsRow {
  tenant_id: string
  max_queues: string | null
  max_partitions: string | null
  max_messages_per_day: string | null
  max_payload_bytes_per_day: string | null
  max_stored_bytes: string | null
  requests_per_second: number | null
  messages_per_second: number | null
}

interface KeyLimitsRow {
  key_id: string
  requests_per_second: number | null
  messages_per_second: number | null
}

// bigint columns arrive as strings; the limits fit a double exactly (they are parsed as safe integers).
const count = (value: string | null) => (value === null ? null : Number(value))

function tenantLimitsOf(row: TenantLimitsRow): TenantLimits {
  return {
    queues: count(row.max_queues),
    partitions: count(row.max_partitions),
    messagesPerDay: count(row.max_messages_per_day),
    payloadBytesPerDay: count(row.max_payload_bytes_per_day),
    storedBytes: count(row.max_stored_bytes),
    requestsPerSecond: row.requests_per_second,
    messagesPerSecond: row.messages_per_second,
  }
}

function keyLimitsOf(row: KeyLimitsRow): KeyLimits {
  return { requestsPerSecond: row.requests_per_second, messagesPerSecond: row.messages_per_second }
}

/** Every tenant's and every key's limits, by id (the snapshot each replica holds). */
export async function loadAllLimits(
  db: pg.Pool | pg.ClientBase,
): Promise<{ tenants: Map<string, TenantLimits>; keys: Map<string, KeyLimits> }> {
  const tenantRows = await gatewayQuery<TenantLimitsRow>(db, 'quotaTenantAll')
  const keyRows = await gatewayQuery<KeyLimitsRow>(db, 'limitKeyAll')
  return {
    tenants: new Map(tenantRows.map((row) => [row.tenant_id, tenantLimitsOf(row)])),
    keys: new Map(keyRows.map((row) => [row.key_id, keyLimitsOf(row)])),
  }
}

/** The version the limits trigger bumps on every change. */
export async function limitsVersion(db: pg.Pool | pg.ClientBase): Promise<string> {
  const rows = await gatewayQuery<{ version: string }>(db, 'limitVersion')
  return rows[0]?.version ?? '0'
}

export async function tenantLimits(db: pg.Pool | pg.ClientBase, tenantId: string): Promise<TenantLimits> {
  const rows = await gatewayQuery<TenantLimitsRow>(db, 'quotaTenantGet', [tenantId])
  return rows[0] ? tenantLimitsOf(rows[0]) : NO_TENANT_LIMITS
}

export async function keyLimits(db: pg.Pool | pg.ClientBase, keyId: string): Promise<KeyLimits> {
  const rows = await gatewayQuery<KeyLimitsRow>(db, 'limitKeyGet', [keyId])
  return rows[0] ? keyLimitsOf(rows[0]) : NO_KEY_LIMITS
}

/** Writes a tenant's limits (every field; `null` = unlimited). */
export async function writeTenantLimits(
  db: pg.Pool | pg.ClientBase,
  tenantId: string,
  limits: TenantLimits,
): Promise<TenantLimits> {
  const rows = await gatewayQuery<TenantLimitsRow>(db, 'quotaTenantUpsert', [
    tenantId,
    limits.queues,
    limits.partitions,
    limits.messagesPerDay,
    limits.payloadBytesPerDay,
    limits.storedBytes,
    limits.requestsPerSecond,
    limits.messagesPerSecond,
  ])
  return tenantLimitsOf(rows[0]!)
}

/** Writes a key's rate limits (`null` = unlimited). */
export async function writeKeyLimits(
  db: pg.Pool | pg.ClientBase,
  keyId: string,
  limits: KeyLimits,
): Promise<KeyLimits> {
  const rows = await gatewayQuery<KeyLimitsRow>(db, 'limitKeyUpsert', [
    keyId,
    limits.requestsPerSecond,
    limits.messagesPerSecond,
  ])
  return keyLimitsOf(rows[0]!)
}

/** The key with this id or visible prefix, with its tenant's name. */
export async function findKey(
  db: pg.Pool | pg.ClientBase,
  idOrPrefix: string,
): Promise<{ id: string; prefix: string; tenant: string }> {
  const rows = await gatewayQuery<{ id: string; prefix: string; tenant: string }>(db, 'limitKeyFind', [idOrPrefix])
  if (rows.length === 0) throw new TenantError(`no API key ${idOrPrefix}`)
  return rows[0]!
}

export { findTenant }

/** A tenant's per-day counters of one UTC day (`YYYY-MM-DD`). */
export async function dailyUsage(
  db: pg.Pool | pg.ClientBase,
  tenantId: string,
  day: string,
): Promise<{ messages: number; payloadBytes: number }> {
  const rows = await gatewayQuery<{ messages: string; payload_bytes: string }>(db, 'quotaDayGet', [tenantId, day])
  return { messages: Number(rows[0]?.messages ?? 0), payloadBytes: Number(rows[0]?.payload_bytes ?? 0) }
}
