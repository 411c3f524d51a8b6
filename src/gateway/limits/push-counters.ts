/**
 * The counters behind the per-day and stored-bytes quotas (docs/gateway.md, "Quotas and rate limits"): messages and
 * payload bytes pushed per tenant per UTC day and over all time, raised by one database call per push that counts
 * it only if it fits every quota (`queen_proxy.count_push`), so the replicas together never admit past one. A push
 * the brokers then refuse (a 4xx answer, nothing stored) is given back.
 */
import type pg from 'pg'
import { gatewayExecute, gatewayQuery } from '../store/run.js'

const DAY_MS = 86_400_000

/** The UTC day of `now`, `YYYY-MM-DD`. */
export function utcDay(now: number): string {
  return new Date(now).toISOString().slice(0, 10)
}

/** Milliseconds until the next UTC midnight: when the per-day counters start again. */
export function msUntilUtcMidnight(now: number): number {
  return DAY_MS - (now % DAY_MS)
}

/** What one push adds to the counters. */
export interface PushAmount {
  readonly messages: number
  readonly payloadBytes: number
}

/** The quotas a push is counted against; `null` = none. */
export interface CountedQuotas {
  readonly messagesPerDay: number | null
  readonly payloadBytesPerDay: number | null
  /** The value the all-time payload bytes may reach (see gateway-limits.ts). */
  readonly storedCeiling: number | null
}

/** A quota the push would pass, and its counter before the push. */
export interface CountRefusal {
  readonly quota: 'messages-per-day' | 'payload-bytes-per-day' | 'stored-bytes'
  readonly used: number
}

/** Counts the push if it fits every quota; else counts nothing and names the quota it would pass. */
export async function countPush(
  db: pg.Pool,
  tenantId: string,
  day: string,
  push: PushAmount,
  quotas: CountedQuotas,
): Promise<CountRefusal | undefined> {
  const rows = await gatewayQuery<{ refused: CountRefusal['quota'] | null; used: string | null }>(
    db,
    'quotaPushCount',
    [
      tenantId,
      day,
      push.messages,
      push.payloadBytes,
      quotas.messagesPerDay,
      quotas.payloadBytesPerDay,
      quotas.storedCeiling,
    ],
  )
  const row = rows[0]
  return row?.refused ? { quota: row.refused, used: Number(row.used) } : undefined
}

/** Gives back a counted push that stored nothing. */
export async function refundPush(db: pg.Pool, tenantId: string, day: string, push: PushAmount): Promise<void> {
  await gatewayExecute(db, 'quotaDayRefund', [tenantId, day, push.messages, push.payloadBytes])
}

/** Everything the tenant pushed through the gateways, over all time. */
export async function pushedTotals(db: pg.Pool, tenantId: string): Promise<PushAmount> {
  const rows = await gatewayQuery<{ messages: number; payload_bytes: number }>(db, 'quotaPushedTotals', [tenantId])
  return { messages: rows[0]?.messages ?? 0, payloadBytes: rows[0]?.payload_bytes ?? 0 }
}
