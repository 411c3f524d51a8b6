/**
 * `queenctl push` (docs/cli.md, "Data-plane commands"): NDJSON lines streamed into `POST /api/v1/push` in batches of
 * `--batch` items (and at most 16 MiB of lines, so a request stays under the broker's default 32 MiB body limit). One
 * request is in flight while the next batch is read, so memory stays flat on any input size and the order of the lines
 * is the order of the requests. Pushes are retried on network errors and 5xx: every item carries a transaction id, so a
 * retry is deduplicated.
 *
 * A bad line (malformed JSON, a wrapper without `data`) stops the push after the lines before it were
 * pushed: the error names the line and how many items were pushed, so the rest can be pushed with
 * `tail -n +LINE`.
 */
import { EXIT, UserError } from './errors.js'
import { HttpRequestError, type HttpClient } from './http-client.js'
import { BadLineError, ndjsonLines, type InputLine, type NdjsonInput } from './ndjson-lines.js'
import { PushItemBuilder, type PushItem, type PushItemOptions } from './push-items.js'
import type { PushAnswer, PushResultItem } from '../wire/index.js'

/** Default `--batch`. */
export const DEFAULT_PUSH_BATCH = 100

/** Line bytes after which a batch is sent even when it has fewer than `--batch` items. */
const MAX_BATCH_BYTES = 16 * 1024 * 1024

/** Failed items kept for the JSON result; the counts cover them all. */
const KEPT_FAILURES = 100

/** A per-item failure. */
export interface PushFailure {
  line: number
  transactionId: string
  error: string
}

/** Per-status counts of a push. */
export interface PushCounts {
  queued: number
  duplicate: number
  buffered: number
  failed: number
}

/** The outcome of `push` (its `-o json` result). */
export interface PushResult extends PushCounts {
  /** Items read from the input. */
  items: number
  /** The first failed items (at most 100). */
  failures: PushFailure[]
}

/** The outcome of `push --dry-run`. */
export interface PushDryRun {
  dryRun: true
  items: number
  /** Requests the push would send. */
  requests: number
  /** Items per queue and partition (`Default` when none is named). */
  partitions: { queue: string; partition: string; items: number }[]
}

/** Settings of one push. */
export interface PushSettings extends PushItemOptions {
  batch: number
  /** Called after each answered request, with the items answered so far. */
  onProgress?: (answered: number) => void
  /** Called for each failed item as it is answered. */
  onFailure?: (failure: PushFailure) => void
}

/** A batch: the items and the numbers of their lines. */
interface Batch {
  items: PushItem[]
  lines: number[]
  bytes: number
}

const emptyBatch = (): Batch => ({ items: [], lines: [], bytes: 0 })

/** Reads batches from the lines; on a bad line the batch before it is handed out first, then the error. */
async function* batches(lines: AsyncIterable<InputLine>, settings: PushSettings): AsyncGenerator<Batch> {
  const builder = new PushItemBuilder(settings)
  let batch = emptyBatch()
  try {
    for await (const line of lines) {
      batch.items.push(builder.build(line))
      batch.lines.push(line.number)
      batch.bytes += line.bytes
      if (batch.items.length >= settings.batch || batch.bytes >= MAX_BATCH_BYTES) {
        yield batch
        batch = emptyBatch()
      }
    }
  } catch (error) {
    const before = batch
    batch = emptyBatch()
    if (before.items.length > 0) yield before
    throw error
  }
  if (batch.items.length > 0) yield batch
}

function pushedSoFar(result: PushResult, lastLine: number | undefined): string {
  if (result.items === 0 || lastLine === undefined) return 'nothing was pushed'
  return `the ${result.items} item(s) of lines 1-${lastLine} were pushed (${pushSummary(result)})`
}

/** A result item's error text (only a failed item has one). */
const errorOf = (item: PushResultItem | undefined): string | undefined =>
  typeof item === 'object' && 'error' in item ? item.error : undefined

/** The broker's request-level error, with `items[i]` translated to the line it came from. */
function requestFailure(error: HttpRequestError, batch: Batch, input: string, before: string): UserError {
  const index = /^items\[(\d+)\]/.exec(error.message)
  const line = index ? batch.lines[Number(index[1])] : undefined
  // A 503 from a full spool carries its reason per item; the first says it.
  const itemError = Array.isArray(error.body)
    ? (error.body as PushAnswer).map(errorOf).find((text) => typeof text === 'string')
    : undefined
  const message = itemError ?? error.message
  const where =
    line === undefined ? `lines ${batch.lines[0]}-${batch.lines.at(-1)} of ${input}` : `${input} line ${line}`
  return new UserError(`${message} (${where}); ${before}`, {
    exitCode: error.exitCode,
    code: error.code,
    hint: error.hint ?? `fix the input and push the rest from line ${batch.lines[0]} (tail -n +${batch.lines[0]})`,
    cause: error,
  })
}

/** Tallies one request's answer into `result`. */
function tally(result: PushResult, batch: Batch, answer: unknown, settings: PushSettings): void {
  const items = Array.isArray(answer) ? (answer as PushAnswer) : []
  batch.items.forEach((item, index) => {
    const answered = items[index]
    const status = answered?.status
    if (status === 'queued' || status === 'duplicate' || status === 'buffered') {
      result[status] += 1
      return
    }
    result.failed += 1
    const failure: PushFailure = {
      line: batch.lines[index] ?? 0,
      transactionId: item.transactionId,
      error: errorOf(answered) ?? (answered ? `status ${String(status)}` : 'no answer for this item'),
    }
    if (result.failures.length < KEPT_FAILURES) result.failures.push(failure)
    settings.onFailure?.(failure)
  })
  result.items += batch.items.length
}

/** Pushes every line of `input`; throws a UserError for a bad line or a refused request. */
export async function pushInput(client: HttpClient, input: NdjsonInput, settings: PushSettings): Promise<PushResult> {
  const result: PushResult = { queued: 0, duplicate: 0, buffered: 0, failed: 0, items: 0, failures: [] }
  let lastLine: number | undefined
  let inFlight: Promise<void> | undefined
  let failure: Error | undefined
  const send = async (batch: Batch) => {
    try {
      const answer = await client.post<unknown>('/api/v1/push', { items: batch.items }, { retry: true })
      tally(result, batch, answer, settings)
      lastLine = batch.lines.at(-1)
      settings.onProgress?.(result.items)
    } catch (error) {
      if (error instanceof HttpRequestError) {
        failure = requestFailure(error, batch, input.name, pushedSoFar(result, lastLine))
      } else failure = error instanceof Error ? error : new Error(String(error))
    }
  }
  try {
    for await (const batch of batches(ndjsonLines(input), settings)) {
      if (inFlight) await inFlight
      if (failure !== undefined) break
      inFlight = send(batch)
    }
  } catch (error) {
    if (inFlight) await inFlight
    if (failure !== undefined) throw failure
    if (!(error instanceof BadLineError)) throw error
    throw new UserError(`${input.name} line ${error.line} ${error.message}; ${pushedSoFar(result, lastLine)}`, {
      exitCode: EXIT.user,
      code: 'bad_input',
      hint: `fix line ${error.line} and push the rest from it (tail -n +${error.line})`,
    })
  }
  if (inFlight) await inFlight
  if (failure !== undefined) throw failure
  return result
}

/** `--dry-run`: reads and checks every line like a push, counts per partition, sends nothing. */
export async function dryRunPush(input: NdjsonInput, settings: PushSettings): Promise<PushDryRun> {
  const counts = new Map<string, { queue: string; partition: string; items: number }>()
  let items = 0
  let requests = 0
  try {
    for await (const batch of batches(ndjsonLines(input), settings)) {
      requests += 1
      for (const item of batch.items) {
        items += 1
        const partition = item.partition ?? 'Default'
        const key = JSON.stringify([item.queue, partition])
        const entry = counts.get(key) ?? { queue: item.queue, partition, items: 0 }
        entry.items += 1
        counts.set(key, entry)
      }
    }
  } catch (error) {
    if (!(error instanceof BadLineError)) throw error
    throw new UserError(`${input.name} line ${error.line} ${error.message}`, { exitCode: EXIT.user, code: 'bad_input' })
  }
  return { dryRun: true, items, requests, partitions: [...counts.values()] }
}

/**
 * The summary line of docs/cli.md, "Data-plane commands": the Go queenctl's `queued=N duplicate=N failed=N`, with
 * ` buffered=N` appended only when the broker spooled messages, so a script parsing the Go line reads ours unchanged.
 */
export function pushSummary(counts: PushCounts): string {
  const line = `queued=${counts.queued} duplicate=${counts.duplicate} failed=${counts.failed}`
  return counts.buffered > 0 ? `${line} buffered=${counts.buffered}` : line
}
