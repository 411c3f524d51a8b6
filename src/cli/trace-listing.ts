/**
 * `traces names`, `traces by-name` and `traces by-message` (docs/http-api.md, "Read traces"): the tables of the trace
 * reads. `by-message` shares the columns of `messages traces`.
 */
import { formatAge, truncate } from './format.js'
import type { Column } from './output.js'
import type { NamedTraceEvent, TraceNamesAnswer } from '../wire/index.js'

/** One row of GET /api/v1/traces/names. */
export type TraceNameRow = TraceNamesAnswer['trace_names'][number]

export type { NamedTraceEvent }

/** A page of a trace listing, with the broker's total. */
export interface TracePage<Row> {
  rows: Row[]
  total: number
}

export const TRACE_NAME_COLUMNS: Column<TraceNameRow>[] = [
  { header: 'NAME', value: (row) => row.trace_name },
  { header: 'EVENTS', value: (row) => row.trace_count },
  { header: 'MESSAGES', value: (row) => row.message_count },
  { header: 'LAST SEEN', value: (row) => formatAge(row.last_seen) },
]

export const NAMED_TRACE_COLUMNS: Column<NamedTraceEvent>[] = [
  { header: 'CREATED', value: (row) => formatAge(row.created_at) },
  { header: 'TX', value: (row) => row.transaction_id },
  { header: 'QUEUE', value: (row) => row.queue_name },
  { header: 'PARTITION', value: (row) => row.partition_name },
  { header: 'EVENT', value: (row) => row.event_type },
  { header: 'GROUP', value: (row) => row.consumer_group },
  { header: 'DATA', value: (row) => truncate(JSON.stringify(row.data), 50) },
  { header: 'PARTITION ID', value: (row) => row.partition_id, wide: true },
  { header: 'WORKER', value: (row) => row.worker_id, wide: true },
]

/** The note under a page that is not the last one. */
export function nextPageNote(offset: number, shown: number, total: number): string | undefined {
  if (total <= offset + shown) return undefined
  return `showing ${offset + 1}-${offset + shown} of ${total}; the next page: --offset ${offset + shown}`
}
