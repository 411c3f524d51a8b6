/** Metering rows in the gateway's database (docs/gateway.md, "Metering"). */
import type pg from 'pg'
import type { UsageRow } from '../metering/usage-meter.js'
import { gatewayExecute, gatewayQuery } from './run.js'

/** One tenant's usage for one hour, as `proxy usage` shows it. */
export interface UsageReport {
  readonly tenantId: string
  /** Null when the tenant was deleted since. */
  readonly tenant: string | null
  readonly hour: string
  readonly requests: number
  readonly messagesPushed: number
  readonly messagesDelivered: number
  readonly messagesAcked: number
  readonly bytesIn: number
  readonly bytesOut: number
}

/** Adds rows to the hourly totals in one statement. */
export async function addUsage(db: pg.Pool | pg.ClientBase, rows: readonly UsageRow[]): Promise<void> {
  if (rows.length === 0) return
  await gatewayExecute(db, 'usageAdd', [
    rows.map((row) => row.tenantId),
    rows.map((row) => new Date(row.hour)),
    rows.map((row) => row.requests),
    rows.map((row) => row.messagesPushed),
    rows.map((row) => row.messagesDelivered),
    rows.map((row) => row.messagesAcked),
    rows.map((row) => row.bytesIn),
    rows.map((row) => row.bytesOut),
  ])
}

/** Hourly usage between `from` (inclusive) and `to` (exclusive), of one tenant (name or id) or all. */
export async function readUsage(
  db: pg.Pool | pg.ClientBase,
  options: { tenant?: string; from: Date; to: Date },
): Promise<UsageReport[]> {
  const rows = await gatewayQuery<{
    tenant_id: string
    tenant: string | null
    hour: Date
    requests: number
    messages_pushed: number
    messages_delivered: number
    messages_acked: number
    bytes_in: number
    bytes_out: number
  }>(db, 'usageRead', [options.tenant ?? null, options.from, options.to])
  return rows.map((row) => ({
    tenantId: row.tenant_id,
    tenant: row.tenant,
    hour: row.hour.toISOString(),
    requests: row.requests,
    messagesPushed: row.messages_pushed,
    messagesDelivered: row.messages_delivered,
    messagesAcked: row.messages_acked,
    bytesIn: row.bytes_in,
    bytesOut: row.bytes_out,
  }))
}
