/**
 * The consume loop of `queenctl tail` (docs/cli.md, "Data-plane commands"): pop, print each message, and with `ack`
 * acknowledge the printed batch (one `ack/batch` request after its lines are written, so a message is never acked
 * before it was printed). Without `follow` it stops at the first empty answer; with it, it long-polls until `limit`
 * messages, `idleMs` without any, or the stop signal (Ctrl-C), which aborts only a parked long-poll: a batch being
 * printed or acked is finished first. With `concurrency` N, N such loops run at once and share the limit and the idle
 * clock.
 */
import { ackItems, type AckFailure, type AckOutcome } from './ack.js'
import { popOnce, type PoppedRow, type PopTarget } from './pop.js'
import type { HttpClient } from './http-client.js'

/** Long-poll of one pop while following: short enough that `--idle` and Ctrl-C are honoured promptly. */
const FOLLOW_POLL_MS = 10_000

/** Pause after an empty answer that came back at once (a leased partition), so a follow does not spin. */
const EMPTY_RETRY_MS = 1000

/** Settings of one tail. */
export interface TailOptions extends PopTarget {
  consumerGroup: string
  batch: number
  maxPartitions?: number
  /** Stop after this many messages. */
  limit?: number
  follow: boolean
  ack: boolean
  fromMode?: string
  since?: string
  /** Stop after this long without a message (implies waiting for messages). */
  idleMs?: number
  /** Longest single long-poll while waiting (default 30 s unless the module's own poll time is shorter). */
  pollMs?: number
  /** Pops in flight at once (default 1). */
  concurrency?: number
  /** Writes the rows of one pop (NDJSON). */
  print: (rows: readonly PoppedRow[]) => void
  onAckFailure?: (failure: AckFailure) => void
  /** Shown once per kind when a pop comes back empty with a reason (a leased partition). */
  onNote?: (note: string) => void
  /** Ctrl-C: stop after the current batch. */
  stop: AbortSignal
}

/** Why the loop ended. */
export type TailEnd = 'drained' | 'limit' | 'idle' | 'interrupted'

/** What a tail did. */
export interface TailResult {
  printed: number
  acked: number
  ackFailed: number
  end: TailEnd
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms)
    function done() {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
    signal.addEventListener('abort', done, { once: true })
  })
}

/** What the workers of one tail share: the counts, the limit's reservations and the time of the last message. */
interface SharedState {
  result: TailResult
  acks: AckOutcome
  notes: Set<string>
  /** Messages asked for by pops in flight or printed: never more than `limit`. */
  reserved: number
  lastMessageAt: number
}

/**
 * Runs the loop, `concurrency` pops at a time (the Go queenctl's --concurrency: each worker claims its own partitions,
 * so the order within a partition holds); resolves when every worker ended (never rejects on Ctrl-C).
 */
export async function tail(client: HttpClient, options: TailOptions): Promise<TailResult> {
  const state: SharedState = {
    result: { printed: 0, acked: 0, ackFailed: 0, end: 'drained' },
    acks: { ok: 0, failed: 0, failures: [] },
    notes: new Set<string>(),
    reserved: 0,
    lastMessageAt: Date.now(),
  }
  const workers = Math.max(1, options.concurrency ?? 1)
  await Promise.all(Array.from({ length: workers }, () => worker(client, options, state)))
  state.result.acked = state.acks.ok
  state.result.ackFailed = state.acks.failed
  return state.result
}

/** One pop loop; it ends the whole tail's reason (`end`) when it stops for a reason of its own. */
async function worker(client: HttpClient, options: TailOptions, state: SharedState): Promise<void> {
  const { result } = state
  const waiting = options.follow || options.idleMs !== undefined
  for (;;) {
    if (options.stop.aborted) {
      result.end = 'interrupted'
      return
    }
    const remaining = options.limit === undefined ? options.batch : options.limit - state.reserved
    if (remaining <= 0) {
      if (options.limit !== undefined && result.printed >= options.limit) result.end = 'limit'
      return
    }
    const idleLeft = options.idleMs === undefined ? Infinity : options.idleMs - (Date.now() - state.lastMessageAt)
    if (idleLeft <= 0) {
      result.end = 'idle'
      return
    }
    const waitMs = waiting ? Math.max(1, Math.min(options.pollMs ?? FOLLOW_POLL_MS, idleLeft)) : 0
    const asked = Math.min(options.batch, remaining)
    state.reserved += asked
    const started = Date.now()
    let answer
    try {
      answer = await popOnce(client, { ...options, batch: asked, waitMs, signal: options.stop })
    } catch (error) {
      state.reserved -= asked
      if (options.stop.aborted) {
        result.end = 'interrupted'
        return
      }
      throw error
    }
    if (answer.kind === 'empty') {
      state.reserved -= asked
      if (!waiting) return
      if (answer.note && !state.notes.has(answer.note)) {
        state.notes.add(answer.note)
        options.onNote?.(answer.note)
      }
      if (Date.now() - started < waitMs / 2) await pause(Math.min(EMPTY_RETRY_MS, idleLeft), options.stop)
      continue
    }
    state.reserved -= asked - answer.rows.length
    options.print(answer.rows)
    result.printed += answer.rows.length
    state.lastMessageAt = Date.now()
    if (options.ack) {
      const items = answer.rows.map((row) => ({
        transactionId: row.transactionId,
        partitionId: row.partitionId,
        leaseId: row.leaseId,
      }))
      await ackItems(client, items, state.acks, {
        consumerGroup: options.consumerGroup,
        onFailure: options.onAckFailure,
      })
    }
  }
}
