/**
 * Harness of the streams compatibility tier: the real client's `Stream` SDK run against an in-process
 * broker. Everything a test does goes through the client's public API (`Queen`, `Stream`, the handle
 * `Stream.run` returns); the harness only adds waiting, error capture and the arithmetic of expected values.
 *
 * Every stream a test starts is registered as a resource (test/support/leak-check.ts): stop it in the test
 * or with {@link StreamHarness.stopStreams} in `afterEach`; {@link StreamHarness.close} stops what is left and
 * closes the client and the broker.
 */
import { afterAll, afterEach, beforeAll, expect } from 'vitest'
import { startTestBroker, type TestBroker } from '../support/broker.js'
import { trackResource } from '../support/resources.js'
import { loadClient } from './client.js'

/** One error the SDK reported through `onError` (cycle, flush, pop ...). */
export interface StreamError {
  phase: string
  message: string
  error: unknown
}

/** A stream started through `Stream.run`, with what it reported. */
export interface RunningStream {
  queryId: string
  /** The handle `Stream.run` resolved to (`stop()`, `metrics()`). */
  handle: any
  errors: StreamError[]
  /** Errors a test expects (for example a foreach that throws on purpose) and that must not fail it. */
  expectError: (error: StreamError) => boolean
  metrics(): any
  stop(): Promise<void>
}

/** A popped message, as the client returns it. */
export interface PoppedMessage {
  transactionId: string
  partitionId: string
  partition: string
  createdAt: string
  data: any
  [field: string]: unknown
}

export interface StreamHarness {
  broker: TestBroker
  queen: any
  Stream: any
  /** Creates a queue through the client, with queue options when given (e.g. `{ leaseTime: 2 }`). */
  createQueue(name: string, options?: Record<string, unknown>): Promise<void>
  /** Pushes payloads to one partition of a queue in one request. */
  push(queue: string, partition: string, payloads: unknown[]): Promise<void>
  /** `stream.run(...)` with the broker's url and error capture; the stream is stopped at the latest by close. */
  run(
    stream: any,
    options: Record<string, unknown> & { queryId: string },
    expectError?: (e: StreamError) => boolean,
  ): Promise<RunningStream>
  /** Stops every stream still running; returns their errors that no test expected (see {@link unexpectedErrors}). */
  stopStreams(): Promise<string[]>
  close(): Promise<void>
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** Starts a broker on a fresh database and a client on it. */
export async function startStreamHarness(label: string): Promise<StreamHarness> {
  const broker = await startTestBroker({ label })
  const client = await loadClient()
  // No process signal handlers: the client is a library here.
  const queen = new client.Queen({ url: broker.url, handleSignals: false })
  const untrackQueen = trackResource(`queen client on ${broker.url}`)
  const running = new Set<RunningStream>()

  const stopOne = async (stream: RunningStream, untrack: () => void) => {
    if (!running.has(stream)) return
    running.delete(stream)
    try {
      await stream.handle.stop()
    } finally {
      untrack()
    }
  }

  return {
    broker,
    queen,
    Stream: client.Stream,
    async createQueue(name, options) {
      const builder = queen.queue(name)
      const answer = await (options ? builder.config(options) : builder).create()
      if (answer && (answer.error || answer.success === false)) {
        throw new Error(`creating queue ${name} failed: ${JSON.stringify(answer)}`)
      }
    },
    async push(queue, partition, payloads) {
      const answer = await queen
        .queue(queue)
        .partition(partition)
        .push(payloads.map((data) => ({ data })))
      const failed = (Array.isArray(answer) ? answer : []).filter((item: any) => item?.status === 'failed')
      if (failed.length > 0) throw new Error(`push to ${queue}/${partition} failed: ${JSON.stringify(failed)}`)
    },
    async run(stream, options, expectError = () => false) {
      const errors: StreamError[] = []
      const quiet = () => undefined
      const handle = await stream.run({
        url: broker.url,
        maxWaitMillis: 300,
        logger: { info: quiet, warn: quiet, error: quiet },
        onError: (error: any, ctx: any) => {
          const body = error?.body?.error ? ` (broker: ${error.body.error})` : ''
          errors.push({ phase: String(ctx?.phase ?? '?'), message: `${error?.message ?? String(error)}${body}`, error })
        },
        ...options,
      })
      const untrack = trackResource(`stream ${options.queryId}`)
      const started: RunningStream = {
        queryId: options.queryId,
        handle,
        errors,
        expectError,
        metrics: () => handle.metrics(),
        stop: () => stopOne(started, untrack),
      }
      running.add(started)
      return started
    },
    async stopStreams() {
      const streams = [...running]
      await Promise.all(streams.map((stream) => stream.stop()))
      return unexpectedErrors(streams)
    },
    async close() {
      const stopped = await Promise.allSettled([...running].map((stream) => stream.stop()))
      try {
        await queen.close()
        untrackQueen()
      } finally {
        await broker.close()
      }
      const failed = stopped.find((result) => result.status === 'rejected')
      if (failed) throw failed.reason
    },
  }
}

/** The errors of these streams that their tests did not expect, one line each. */
export function unexpectedErrors(streams: RunningStream[]): string[] {
  return streams.flatMap((stream) =>
    stream.errors
      .filter((error) => !stream.expectError(error))
      .map((error) => `${stream.queryId} [${error.phase}] ${error.message}`),
  )
}

/**
 * Polls `condition` until it holds. Fails at once when one of `streams` reports an error the test did not
 * expect (the SDK retries nothing itself: a failed cycle leaves its batch leased until the lease expires),
 * and at the deadline with `what`, the streams' errors and metrics.
 */
export async function waitFor(
  what: string,
  condition: () => boolean | Promise<boolean>,
  { streams = [], timeoutMs = 15_000 }: { streams?: RunningStream[]; timeoutMs?: number } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const unexpected = unexpectedErrors(streams)
    if (unexpected.length > 0) {
      throw new Error(`waiting for ${what}: the stream reported errors:\n  ${unexpected.join('\n  ')}`)
    }
    if (await condition()) return
    if (Date.now() > deadline) {
      const metrics = streams.map((stream) => `${stream.queryId}: ${JSON.stringify(stream.metrics())}`)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}\n  ${metrics.join('\n  ')}`)
    }
    await sleep(50)
  }
}

/** Waits until the stream has committed cycles covering at least `count` source messages. */
export async function waitForProcessed(stream: RunningStream, count: number, timeoutMs = 15_000): Promise<void> {
  await waitFor(
    `${stream.queryId} to process ${count} source messages`,
    () => stream.metrics().messagesTotal >= count,
    {
      streams: [stream],
      timeoutMs,
    },
  )
}

/**
 * Pops (queue mode) and acks a queue's messages until `count` arrived, then keeps popping for `settleMs`
 * so that extra messages (duplicates) show up too. Returns every message popped, in pop order.
 */
export async function drainQueue(
  harness: StreamHarness,
  queue: string,
  count: number,
  {
    streams = [],
    timeoutMs = 15_000,
    settleMs = 700,
  }: { streams?: RunningStream[]; timeoutMs?: number; settleMs?: number } = {},
): Promise<PoppedMessage[]> {
  const received: PoppedMessage[] = []
  const popOnce = async () => {
    const messages: PoppedMessage[] = await harness.queen
      .queue(queue)
      .batch(1000)
      .partitions(100)
      .wait(true)
      .timeoutMillis(200)
      .pop()
    if (messages.length > 0) {
      const acked = await harness.queen.ack(messages, true)
      if (acked?.success === false) throw new Error(`ack of ${queue} messages failed: ${acked.error}`)
      received.push(...messages)
    }
  }
  await waitFor(
    `${count} messages on ${queue}`,
    async () => {
      await popOnce()
      return received.length >= count
    },
    { streams, timeoutMs },
  )
  const settleUntil = Date.now() + settleMs
  while (Date.now() < settleUntil) await popOnce()
  return received
}

/**
 * Reads a partition of a source queue through its own consumer group (the stream's group is untouched):
 * the messages a user pushed, with the `createdAt` the broker stamped, in partition order.
 */
export async function readPartition(
  harness: StreamHarness,
  queue: string,
  partition: string,
  count: number,
): Promise<PoppedMessage[]> {
  const group = `audit-${Math.random().toString(36).slice(2, 10)}`
  const messages: PoppedMessage[] = await harness.queen
    .queue(queue)
    .partition(partition)
    .group(group)
    .batch(Math.max(count, 1))
    .wait(false)
    .pop()
  if (messages.length !== count) {
    throw new Error(`expected ${count} messages on ${queue}/${partition}, read ${messages.length}`)
  }
  return messages
}

/** Epoch milliseconds of a popped message's `createdAt` (what the SDK's processing-time windows use). */
export function createdAtMs(message: PoppedMessage): number {
  const ms = Date.parse(message.createdAt)
  if (Number.isNaN(ms)) throw new Error(`unparseable createdAt ${message.createdAt}`)
  return ms
}

/**
 * Sleeps until the wall clock is `phaseMs` into a period of `periodMs` (e.g. 150 ms after a whole second),
 * so that a burst pushed right after lands inside one window and far from its edges.
 */
export async function alignTo(periodMs: number, phaseMs: number): Promise<void> {
  const delay = (phaseMs - (Date.now() % periodMs) + periodMs) % periodMs
  await sleep(delay < 20 ? delay + periodMs : delay)
}

/** An aggregate `{count, sum}` per window start. */
export type WindowTotals = Record<string, { count: number; sum: number }>

/** Adds one value to the totals of a window (keyed by `key`). */
export function addTo(totals: WindowTotals, key: string, value: number): void {
  const entry = (totals[key] ??= { count: 0, sum: 0 })
  entry.count += 1
  entry.sum += value
}

/** The start of every window of `sizeMs`, aligned to `slideMs`, that contains `t` (ws ≤ t < ws + size). */
export function windowsContaining(t: number, sizeMs: number, slideMs: number): number[] {
  const starts: number[] = []
  for (let ws = Math.floor(t / slideMs) * slideMs; ws > t - sizeMs; ws -= slideMs) starts.push(ws)
  return starts
}

/**
 * A harness for the tests of one describe block: started before them, every stream stopped after each test
 * (a stream error no test expected fails that test), closed after them all. Call it inside the block.
 */
export function useStreamHarness(label: string): () => StreamHarness {
  let harness: StreamHarness | undefined
  beforeAll(async () => {
    harness = await startStreamHarness(label)
  })
  afterEach(async () => {
    expect(await harness?.stopStreams()).toEqual([])
  })
  afterAll(async () => {
    await harness?.close()
  })
  return () => harness!
}
