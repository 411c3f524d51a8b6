/**
 * The DLQ commands (docs/cli.md, "DLQ commands"): the filters and pages of GET /api/v1/dlq (docs/http-api.md, "List the
 * dead-letter queue"), the table, and the bulk actions `requeue` (POST /messages/:p/:t/retry per row, with the row's
 * group) and `drain` (DELETE /messages/:p/:t per message).
 */
import { Flags } from '@oclif/core'
import { EXIT, UserError } from './errors.js'
import { formatAge, truncate } from './format.js'
import { HttpRequestError, type HttpClient } from './http-client.js'
import type { Column } from './output.js'
import { parseTime } from './times.js'
import type { DlqAnswer, DlqMessage, MessageDeleteAnswer } from '../wire/index.js'

/** One DLQ entry as the broker lists it: a (message, group) the group gave up on (src/wire/dlq.ts). */
export type DeadLetter = DlqMessage

/** The filter flags shared by dlq list, requeue and drain. */
export const dlqFilterFlags = {
  queue: Flags.string({ description: 'only this queue' }),
  cg: Flags.string({ description: 'only the entries of this consumer group (__QUEUE_MODE__ for queue mode)' }),
  partition: Flags.string({ description: 'only this partition name (with --queue)' }),
  from: Flags.string({ description: 'failed at or after this time: 15m, "2h ago", 2026-01-31, RFC 3339' }),
  to: Flags.string({ description: 'failed at or before this time (same forms as --from)' }),
}

/** The parsed filters. */
export interface DlqFilters {
  queue?: string
  cg?: string
  partition?: string
  from?: string
  to?: string
}

/** The query of GET /api/v1/dlq for the filters (times parsed as docs/cli.md, "Times and seek targets"). */
export function dlqQuery(filters: DlqFilters): Record<string, string | undefined> {
  return {
    queue: filters.queue,
    consumerGroup: filters.cg,
    partition: filters.partition,
    from: filters.from === undefined ? undefined : parseTime(filters.from, { flag: '--from' }),
    to: filters.to === undefined ? undefined : parseTime(filters.to, { flag: '--to' }),
  }
}

/** One page of the DLQ. */
export async function fetchDeadLetters(
  client: HttpClient,
  filters: DlqFilters,
  page: { limit: number; offset: number },
): Promise<{ rows: DeadLetter[]; total: number | undefined }> {
  const answer = await client.get<DlqAnswer>('/api/v1/dlq', { query: { ...dlqQuery(filters), ...page } })
  return { rows: answer.messages, total: answer.total }
}

const PAGE_SIZE = 1000

/**
 * Every matching entry, page by page. Collected before anything is changed: a requeue takes rows out of
 * the DLQ, so paging while acting would skip some.
 */
export async function collectDeadLetters(client: HttpClient, filters: DlqFilters): Promise<DeadLetter[]> {
  const rows: DeadLetter[] = []
  for (let offset = 0; ; offset += PAGE_SIZE) {
    const page = await fetchDeadLetters(client, filters, { limit: PAGE_SIZE, offset })
    rows.push(...page.rows)
    if (page.rows.length < PAGE_SIZE) return rows
  }
}

export const DLQ_COLUMNS: Column<DeadLetter>[] = [
  { header: 'TX', value: (row) => row.transactionId },
  { header: 'QUEUE', value: (row) => row.queue },
  { header: 'PARTITION', value: (row) => row.partition },
  { header: 'GROUP', value: (row) => row.consumerGroup },
  { header: 'RETRIES', value: (row) => row.retryCount },
  { header: 'ERROR', value: (row) => (row.errorMessage === null ? null : truncate(row.errorMessage, 60)) },
  { header: 'FAILED AT', value: (row) => formatAge(row.failedAt), wide: true },
  { header: 'PARTITION ID', value: (row) => row.partitionId, wide: true },
]

/** One row that a bulk action could not handle. */
export interface BulkFailure {
  partitionId: string
  transactionId: string
  consumerGroup?: string
  error: string
  exitCode: number
}

/** What requeue or drain did. */
export interface BulkOutcome {
  done: number
  errors: number
  failures: BulkFailure[]
}

/**
 * Runs `action` for each item and counts; a broker that refuses the credentials or cannot be reached
 * stops the run (every other row would fail the same way), any other failure is counted and reported.
 */
export async function runBulk<Item extends { partitionId: string; transactionId: string; consumerGroup?: string }>(
  items: readonly Item[],
  action: (item: Item) => Promise<void>,
  onFailure: (failure: BulkFailure) => void,
): Promise<BulkOutcome> {
  const outcome: BulkOutcome = { done: 0, errors: 0, failures: [] }
  for (const item of items) {
    try {
      await action(item)
      outcome.done += 1
    } catch (error) {
      if (!(error instanceof HttpRequestError)) throw error
      if (error.exitCode === EXIT.auth || error.status === undefined) {
        throw new UserError(`${error.message} (stopped after ${outcome.done} of ${items.length})`, {
          exitCode: error.exitCode,
          code: error.code,
          hint: error.hint,
          cause: error,
        })
      }
      const failure: BulkFailure = {
        partitionId: item.partitionId,
        transactionId: item.transactionId,
        ...(item.consumerGroup === undefined ? {} : { consumerGroup: item.consumerGroup }),
        error: error.message,
        exitCode: error.exitCode,
      }
      outcome.errors += 1
      outcome.failures.push(failure)
      onFailure(failure)
    }
  }
  return outcome
}

/** A message path of docs/http-api.md, "Messages, DLQ and traces". */
export function messagePath(partitionId: string, transactionId: string, suffix = ''): string {
  return `/api/v1/messages/${encodeURIComponent(partitionId)}/${encodeURIComponent(transactionId)}${suffix}`
}

/** Requeues one DLQ entry for its group (docs/http-api.md, "Retry a message"). */
export async function requeueDeadLetter(client: HttpClient, row: DeadLetter): Promise<void> {
  await client.post(messagePath(row.partitionId, row.transactionId, '/retry'), { consumerGroup: row.consumerGroup })
}

/** Deletes one message; `success:false` (already gone) is a failure of that row. */
export async function deleteMessage(client: HttpClient, partitionId: string, transactionId: string): Promise<void> {
  const answer = await client.delete<MessageDeleteAnswer>(messagePath(partitionId, transactionId))
  if (!answer.success) {
    throw new HttpRequestError(answer.message, { exitCode: EXIT.user, status: 200, code: 'not_found' })
  }
}

/** The messages of the rows, each once (a message dead-lettered by two groups is deleted once). */
export function distinctMessages(rows: readonly DeadLetter[]): { partitionId: string; transactionId: string }[] {
  const seen = new Map<string, { partitionId: string; transactionId: string }>()
  for (const row of rows) {
    seen.set(`${row.partitionId}/${row.transactionId}`, {
      partitionId: row.partitionId,
      transactionId: row.transactionId,
    })
  }
  return [...seen.values()]
}

/** The filters as command-line flags (`--queue "orders" --cg "billing"`); empty without filters. */
export function filterArgs(filters: DlqFilters): string {
  return Object.entries(filters)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `--${key} ${JSON.stringify(value)}`)
    .join(' ')
}

/** The filters for messages, or `the whole DLQ`. */
export function describeFilters(filters: DlqFilters): string {
  return filterArgs(filters) || 'the whole DLQ'
}
