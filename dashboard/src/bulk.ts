/**
 * Bulk actions of the DLQ page, as `queenctl dlq requeue|drain` runs them (docs/cli.md, "DLQ commands"):
 * every matching entry is collected first (acting while paging would skip rows), then one request per item,
 * a few at a time. A refusal of the credentials or an unreachable broker stops the run (every other item
 * would fail the same way); any other failure is counted.
 */
import type { DlqAnswer, DlqMessage } from '../../src/wire/index.js'
import { apiGet, ApiError } from './api'

/** Largest page the DLQ listing serves in one request (docs/http-api.md, "List the dead-letter queue"). */
const COLLECT_PAGE = 1000
/** Requests in flight at once: quick for an operator, light for the broker. */
const IN_FLIGHT = 4

/** Every DLQ entry matching `query` (the listing's filters, without limit and offset). */
export async function collectDeadLetters(query: URLSearchParams): Promise<DlqMessage[]> {
  const rows: DlqMessage[] = []
  for (let offset = 0; ; offset += COLLECT_PAGE) {
    const page = new URLSearchParams(query)
    page.set('limit', String(COLLECT_PAGE))
    page.set('offset', String(offset))
    const answer = await apiGet<DlqAnswer>(`/api/v1/dlq?${page.toString()}`, 'read')
    rows.push(...answer.messages)
    if (answer.messages.length < COLLECT_PAGE) return rows
  }
}

/** What a bulk run did. */
export interface BulkOutcome {
  done: number
  failures: string[]
}

/** Runs `action` on every item, {@link IN_FLIGHT} at a time. */
export async function runBulk<T>(items: readonly T[], action: (item: T) => Promise<void>): Promise<BulkOutcome> {
  const outcome: BulkOutcome = { done: 0, failures: [] }
  let next = 0
  let stopped: ApiError | undefined
  const worker = async () => {
    while (stopped === undefined && next < items.length) {
      const item = items[next++] as T
      try {
        await action(item)
        outcome.done += 1
      } catch (error) {
        if (error instanceof ApiError && (error.status === 0 || error.status === 401 || error.status === 403)) {
          stopped = error
          return
        }
        outcome.failures.push((error as Error).message)
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, items.length) }, worker))
  if (stopped !== undefined) {
    throw new ApiError(`${stopped.message} (stopped after ${outcome.done} of ${items.length})`, stopped.status)
  }
  return outcome
}

/** The messages of the entries, each once (a message dead-lettered by two groups is deleted once). */
export function distinctMessages(rows: readonly DlqMessage[]): { partitionId: string; transactionId: string }[] {
  const seen = new Map<string, { partitionId: string; transactionId: string }>()
  for (const row of rows) seen.set(`${row.partitionId}/${row.transactionId}`, row)
  return [...seen.values()]
}
