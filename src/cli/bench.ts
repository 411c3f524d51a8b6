/**
 * `bench` (docs/cli.md, "Command reference"): a quick smoke load against a broker from this one client — push N
 * messages into a fresh queue in batches, pop them back in batches, ack each batch — and the rate of each phase.
 * One request at a time unless --producers/--consumers ask for more (the push phase is timed by the wall clock, pop
 * and ack by their request time shared among the consumers), so the figures say "this broker answers, at roughly
 * this speed, from here"; the real
 * benchmark, with concurrency and percentiles, is `npm run bench` (docs/performance.md).
 */
import { randomBytes } from 'node:crypto'
import { ackItems, type AckOutcome } from './ack.js'
import { EXIT, UserError } from './errors.js'
import { HttpRequestError, type HttpClient } from './http-client.js'
import type { Column } from './output.js'
import { popOnce } from './pop.js'
import { queuePath } from './queues.js'
import type { PushAnswer } from '../wire/index.js'

/** What to run. */
export interface BenchOptions {
  queue?: string
  messages: number
  batch: number
  payloadBytes: number
  partitions: number
  keep: boolean
  /** Concurrent pushers (the Go queenctl's --producers); 1 by default. */
  producers?: number
  /** Concurrent pop-and-ack loops (--consumers); 1 by default. */
  consumers?: number
}

/** Runs `count` copies of `work` at once and waits for all (the first failure rejects). */
async function inParallel(count: number, work: () => Promise<void>): Promise<void> {
  await Promise.all(Array.from({ length: Math.max(1, count) }, () => work()))
}

/** One phase's figures. */
export interface BenchPhase {
  phase: 'push' | 'pop' | 'ack'
  messages: number
  requests: number
  seconds: number
  perSecond: number
}

/** The whole run. */
export interface BenchResult {
  server: string
  queue: string
  batch: number
  payloadBytes: number
  partitions: number
  phases: BenchPhase[]
  /** The queue was left in place (--keep). */
  kept: boolean
}

export const BENCH_COLUMNS: Column<BenchPhase>[] = [
  { header: 'PHASE', value: (row) => row.phase },
  { header: 'MESSAGES', value: (row) => row.messages },
  { header: 'REQUESTS', value: (row) => row.requests },
  { header: 'SECONDS', value: (row) => row.seconds.toFixed(3) },
  { header: 'MSG/S', value: (row) => Math.round(row.perSecond) },
]

/** Consecutive empty pops after which the consume phase gives up. */
const EMPTY_POPS_ALLOWED = 3

function phase(name: BenchPhase['phase'], messages: number, requests: number, ms: number): BenchPhase {
  const seconds = ms / 1000
  return { phase: name, messages, requests, seconds, perSecond: seconds > 0 ? messages / seconds : 0 }
}

/** Runs the smoke load; throws a UserError when the queue exists or the broker loses messages. */
export async function runBench(client: HttpClient, options: BenchOptions): Promise<BenchResult> {
  const queue = options.queue ?? `queenctl-bench-${randomBytes(4).toString('hex')}`
  const existing = await client.get(queuePath(queue)).then(
    () => true,
    (error: { status?: number }) => {
      if (error.status === 404) return false
      throw error
    },
  )
  if (existing) {
    throw new UserError(`queue ${JSON.stringify(queue)} exists; bench pushes into a queue of its own and deletes it`, {
      hint: 'leave --queue out (a random name is used) or name a queue that does not exist',
    })
  }
  const pad = 'x'.repeat(options.payloadBytes)
  let pushRequests = 0
  let pushMs = 0
  try {
    let nextStart = 0
    const pushStarted = performance.now()
    await inParallel(options.producers ?? 1, async () => {
      while (nextStart < options.messages) {
        const start = nextStart
        nextStart += options.batch
        const count = Math.min(options.batch, options.messages - start)
        const items = Array.from({ length: count }, (_, index) => ({
          queue,
          partition: `p${(start + index) % options.partitions}`,
          payload: { n: start + index, pad },
        }))
        const answer = await client
          .post<PushAnswer>('/api/v1/push', { items })
          // A 503 (spool unavailable) still carries the per-item outcomes: report the first refusal.
          .catch((error: unknown) => {
            if (error instanceof HttpRequestError && Array.isArray(error.body)) return error.body as PushAnswer
            throw error
          })
        pushRequests += 1
        const refused = answer.find((item) => item.status !== 'queued')
        if (refused) {
          const reason = 'error' in refused ? refused.error : undefined
          throw new UserError(`push answered ${refused.status ?? 'nothing'}: ${reason ?? 'no error given'}`, {
            exitCode: EXIT.server,
            hint: 'bench measures PostgreSQL-backed pushes: check queenctl maintenance status and queenctl ping',
          })
        }
      }
    })
    pushMs = performance.now() - pushStarted

    let popped = 0
    let popRequests = 0
    let popMs = 0
    let ackRequests = 0
    let ackMs = 0
    let empty = 0
    const acks: AckOutcome = { ok: 0, failed: 0, failures: [] }
    const consumers = Math.max(1, options.consumers ?? 1)
    await inParallel(consumers, async () => {
      while (popped < options.messages && empty < EMPTY_POPS_ALLOWED * consumers) {
        const started = performance.now()
        const answer = await popOnce(client, {
          queue,
          batch: options.batch,
          maxPartitions: options.partitions,
          waitMs: 0,
        })
        popMs += (performance.now() - started) / consumers
        popRequests += 1
        if (answer.kind === 'empty') {
          empty += 1
          continue
        }
        empty = 0
        popped += answer.rows.length
        const acked = performance.now()
        await ackItems(
          client,
          answer.rows.map((row) => ({
            transactionId: row.transactionId,
            partitionId: row.partitionId,
            leaseId: row.leaseId,
            status: 'completed',
          })),
          acks,
        )
        ackMs += (performance.now() - acked) / consumers
        ackRequests += 1
      }
    })
    if (popped < options.messages || acks.failed > 0) {
      throw new UserError(
        `popped ${popped} and acked ${acks.ok} of ${options.messages} pushed messages` +
          (acks.failures[0] ? `: ${acks.failures[0].error}` : ''),
        { exitCode: EXIT.server, hint: `the queue ${queue} is kept for a look: queenctl queue describe ${queue}` },
      )
    }
    const result: BenchResult = {
      server: client.server,
      queue,
      batch: options.batch,
      payloadBytes: options.payloadBytes,
      partitions: options.partitions,
      phases: [
        phase('push', options.messages, pushRequests, pushMs),
        phase('pop', popped, popRequests, popMs),
        phase('ack', acks.ok, ackRequests, ackMs),
      ],
      kept: options.keep,
    }
    if (!options.keep) await client.delete(queuePath(queue))
    return result
  } catch (error) {
    if (!(error instanceof UserError)) await client.delete(queuePath(queue)).catch(() => undefined)
    throw error
  }
}
