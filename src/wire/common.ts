/** Shapes shared by several routes (docs/http-api.md, "Timestamps"). */

/** An ISO 8601 (RFC 3339) UTC timestamp; bucket timestamps carry no fraction. */
export type Timestamp = string

/** The window a series answer covers. */
export interface TimeRange {
  from: Timestamp
  to: Timestamp
}

/** The window and bucket width of the series routes. */
export interface SeriesWindow {
  timeRange: TimeRange
  bucketMinutes: number
}

/** `limit` and `offset` echoed by the paged listings. */
export interface Pagination {
  limit: number
  offset: number
}

/** Message counters of a partition, queue or the whole broker (docs/semantics.md, "Status counters"). */
export interface MessageCounters {
  total: number
  pending: number
  processing: number
  completed: number
  failed: number
  deadLetter: number
}
