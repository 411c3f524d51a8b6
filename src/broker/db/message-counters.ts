/**
 * The status counters of messages (docs/semantics.md, "Status counters") as the queue, status and overview statements
 * name them.
 */

/** Messages by status, summed over the partitions a row covers. */
export interface MessageCountersRow {
  total: number
  pending: number
  processing: number
  completed: number
  failed: number
  dead_letter: number
}
