/**
 * Client trace events on messages (trace-* statements): recording one, and the listings by name, of the
 * names themselves and of one message.
 */
import type pg from 'pg'
import { runQuery } from '../db/run-query.js'

/** A trace event to record on an existing message. */
export interface TraceEvent {
  /** The caller's tenant: a message under another tenant's partition is not found. */
  tenant: string
  partitionId: string
  transactionId: string
  group: string
  eventType: string
  /** Any JSON value; stored as jsonb. */
  data: unknown
  workerId: string | null
  names: string[]
}

/** A page of a listing. */
export interface Page {
  limit: number
  offset: number
}

/** A trace event with its names. */
export interface TraceRow {
  id: string
  event_type: string
  data: unknown
  consumer_group: string
  worker_id: string | null
  created_at: Date
  trace_names: string[]
}

/** A trace name with how many events and distinct messages carry it, and the total number of names. */
export interface TraceNameRow {
  trace_name: string
  trace_count: number
  message_count: number
  last_seen: Date
  total: number
}

/** A trace event carrying a name, with its message (payload as stored; null once the message is gone). */
export interface NamedTraceRow extends TraceRow {
  transaction_id: string
  partition_id: string
  queue_name: string
  partition_name: string
  message_payload: unknown
  message_is_encrypted: boolean | null
  total: number
}

/** Records the event; resolves with its id, or undefined when the message does not exist. */
export async function recordTrace(pool: pg.Pool, event: TraceEvent): Promise<string | undefined> {
  // trace-record.sql: $1 partition id, $2 transaction id, $3 group, $4 event type, $5 data, $6 worker id,
  // $7 names, $8 tenant.
  const [row] = await runQuery<{ id: string }>(pool, 'traceRecord', [
    event.partitionId,
    event.transactionId,
    event.group,
    event.eventType,
    JSON.stringify(event.data),
    event.workerId,
    event.names,
    event.tenant,
  ])
  return row?.id
}

/** The tenant's trace names, most recently seen first. */
export async function listTraceNames(pool: pg.Pool, params: Page & { tenant: string }): Promise<TraceNameRow[]> {
  // trace-names.sql: $1 tenant, $2 limit, $3 offset.
  return runQuery<TraceNameRow>(pool, 'traceNames', [params.tenant, params.limit, params.offset])
}

/** The events carrying one name, newest first. */
export async function listTracesByName(
  pool: pg.Pool,
  params: Page & { tenant: string; name: string },
): Promise<NamedTraceRow[]> {
  // trace-list-by-name.sql: $1 tenant, $2 trace name, $3 limit, $4 offset.
  return runQuery<NamedTraceRow>(pool, 'traceListByName', [params.tenant, params.name, params.limit, params.offset])
}

/** The events of one message, oldest first. */
export async function listMessageTraces(
  pool: pg.Pool,
  params: { tenant: string; partitionId: string; transactionId: string },
): Promise<TraceRow[]> {
  // trace-list-by-message.sql: $1 tenant, $2 partition id, $3 transaction id.
  return runQuery<TraceRow>(pool, 'traceListByMessage', [params.tenant, params.partitionId, params.transactionId])
}
