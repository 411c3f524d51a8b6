/** Traces (docs/http-api.md, "Read traces"), snake_case as the clients read them. */
import type { Pagination, Timestamp } from './common.js'

/** One trace event of a message. */
export interface TraceEvent {
  id: string
  event_type: string
  data: unknown
  consumer_group: string | null
  worker_id: string | null
  created_at: Timestamp
  trace_names: string[]
}

/** GET /api/v1/traces/:partitionId/:transactionId. */
export interface MessageTracesAnswer {
  traces: TraceEvent[]
}

/** GET /api/v1/traces/names. */
export interface TraceNamesAnswer {
  trace_names: { trace_name: string; trace_count: number; message_count: number; last_seen: Timestamp }[]
  total: number
  pagination: Pagination
}

/** One event of GET /api/v1/traces/by-name/:traceName, with its message. */
export interface NamedTraceEvent extends TraceEvent {
  transaction_id: string
  partition_id: string
  queue_name: string
  partition_name: string
  message_payload: unknown
  message_payload_error?: string
}

/** GET /api/v1/traces/by-name/:traceName. */
export interface NamedTracesAnswer {
  traces: NamedTraceEvent[]
  total: number
  pagination: Pagination
}
