/**
 * Acknowledgements as `queenctl ack` and `tail --ack` send them (docs/cli.md, "Data-plane commands", docs/http-api.md,
 * "Ack" and "Ack batch"): one ack, a list of popped rows, or `ack --batch` lines (the `pop`/`tail` NDJSON shape)
 * streamed in requests of 1,000. Acks are never retried (docs/cli.md, "HTTP behaviour"): a retry of an ack that took
 * effect could fail a message twice.
 */
import { EXIT, UserError } from './errors.js'
import type { HttpClient } from './http-client.js'
import { BadLineError, ndjsonLines, type NdjsonInput } from './ndjson-lines.js'
import type { AckAnswer, AckResultItem } from '../wire/index.js'

/** Statuses of `--status`. */
export const ACK_STATUSES = ['completed', 'failed', 'dlq', 'retry'] as const
export type AckStatus = (typeof ACK_STATUSES)[number]

/** Acks per `POST /api/v1/ack/batch` of `ack --batch` (the broker's default cap is 10,000). */
const ACK_CHUNK = 1000

/** Failed acks kept for the JSON result; the counts cover them all. */
const KEPT_FAILURES = 100

/** One acknowledgement. */
export interface AckItem {
  transactionId: string
  partitionId: string
  leaseId?: string
  consumerGroup?: string
  status?: string
  error?: string
}

/** A failed ack; `line` is set for `ack --batch` input. */
export interface AckFailure {
  line?: number
  transactionId: string
  partitionId: string
  error: string
}

/** The outcome of several acks (`ok=N failed=M`). */
export interface AckOutcome {
  ok: number
  failed: number
  /** The first failed acks (at most 100). */
  failures: AckFailure[]
}

/** The body of one ack or ack-batch item: unset fields left out, an empty lease (auto-acked) too. */
function wireItem(item: AckItem): Record<string, string> {
  const wire: Record<string, string> = { transactionId: item.transactionId, partitionId: item.partitionId }
  if (item.leaseId) wire.leaseId = item.leaseId
  if (item.consumerGroup !== undefined) wire.consumerGroup = item.consumerGroup
  if (item.status !== undefined) wire.status = item.status
  if (item.error !== undefined) wire.error = item.error
  return wire
}

/** `POST /api/v1/ack`: the result item; a per-item failure is a UserError (exit 2) with the broker's text. */
export async function ackOne(client: HttpClient, item: AckItem): Promise<AckResultItem> {
  const answer = await client.post<AckAnswer>('/api/v1/ack', wireItem(item), { retry: false })
  const result = Array.isArray(answer) ? answer[0] : undefined
  if (result?.success !== true) {
    throw new UserError(`ack of ${item.transactionId} failed: ${result?.error ?? 'no answer for the item'}`, {
      exitCode: EXIT.server,
      code: 'ack_failed',
    })
  }
  return result
}

/**
 * `POST /api/v1/ack/batch` of `items` (with `consumerGroup` applying to all when given); tallies into
 * `outcome` and reports each failure, `lines[i]` naming the input line of item i.
 */
export async function ackItems(
  client: HttpClient,
  items: readonly AckItem[],
  outcome: AckOutcome,
  options: { consumerGroup?: string; lines?: readonly number[]; onFailure?: (failure: AckFailure) => void } = {},
): Promise<void> {
  if (items.length === 0) return
  const answer = await client.post<AckAnswer>(
    '/api/v1/ack/batch',
    { acknowledgments: items.map(wireItem), consumerGroup: options.consumerGroup ?? null },
    { retry: false },
  )
  const results = Array.isArray(answer) ? answer : []
  items.forEach((item, index) => {
    const result = results[index]
    if (result?.success === true) {
      outcome.ok += 1
      return
    }
    outcome.failed += 1
    const failure: AckFailure = {
      ...(options.lines?.[index] === undefined ? {} : { line: options.lines[index] }),
      transactionId: item.transactionId,
      partitionId: item.partitionId,
      error: result?.error ?? 'no answer for this item',
    }
    if (outcome.failures.length < KEPT_FAILURES) outcome.failures.push(failure)
    options.onFailure?.(failure)
  })
}

function stringField(row: Record<string, unknown>, field: string, line: number, required: boolean): string | undefined {
  const value = row[field]
  if (value === undefined || value === null) {
    if (required) throw new BadLineError(line, `has no ${field}`)
    return undefined
  }
  if (typeof value !== 'string') throw new BadLineError(line, `${field} must be a string`)
  return value
}

/** An `ack --batch` line: a popped row, or any object with transactionId and partitionId. */
function lineItem(text: string, line: number, defaults: { status?: string; error?: string }): AckItem {
  let row: unknown
  try {
    row = JSON.parse(text) as unknown
  } catch (error) {
    throw new BadLineError(line, `is not valid JSON (${(error as Error).message})`)
  }
  if (row === null || typeof row !== 'object' || Array.isArray(row)) {
    throw new BadLineError(line, 'is not a JSON object (a pop or tail line)')
  }
  const fields = row as Record<string, unknown>
  const status = stringField(fields, 'status', line, false) ?? defaults.status
  const error = stringField(fields, 'error', line, false) ?? defaults.error
  const leaseId = stringField(fields, 'leaseId', line, false)
  const consumerGroup = stringField(fields, 'consumerGroup', line, false)
  return {
    transactionId: stringField(fields, 'transactionId', line, true)!,
    partitionId: stringField(fields, 'partitionId', line, true)!,
    ...(leaseId === undefined ? {} : { leaseId }),
    ...(consumerGroup === undefined ? {} : { consumerGroup }),
    ...(status === undefined ? {} : { status }),
    ...(error === undefined ? {} : { error }),
  }
}

/**
 * `ack --batch`: acks every line of `input` in requests of 1,000. `consumerGroup` (`--cg`) applies to
 * every line; otherwise each line's own group is used. A malformed line stops after the lines before it
 * were acked, naming the line and the count. Returns undefined for an input without lines.
 */
export async function ackInput(
  client: HttpClient,
  input: NdjsonInput,
  options: { consumerGroup?: string; status?: string; error?: string; onFailure?: (failure: AckFailure) => void },
): Promise<AckOutcome | undefined> {
  const outcome: AckOutcome = { ok: 0, failed: 0, failures: [] }
  let items: AckItem[] = []
  let lines: number[] = []
  let seen = false
  const flush = async () => {
    const [chunk, chunkLines] = [items, lines]
    items = []
    lines = []
    await ackItems(client, chunk, outcome, {
      consumerGroup: options.consumerGroup,
      lines: chunkLines,
      onFailure: options.onFailure,
    })
  }
  try {
    for await (const line of ndjsonLines(input)) {
      seen = true
      items.push(lineItem(line.text, line.number, options))
      lines.push(line.number)
      if (items.length >= ACK_CHUNK) await flush()
    }
  } catch (error) {
    if (!(error instanceof BadLineError)) throw error
    await flush()
    throw new UserError(
      `${input.name} line ${error.line} ${error.message}; the lines before it were acked (ok=${outcome.ok} failed=${outcome.failed})`,
      {
        exitCode: EXIT.user,
        code: 'bad_input',
        hint: 'each line needs the transactionId and partitionId of a popped message',
      },
    )
  }
  await flush()
  return seen ? outcome : undefined
}
