/**
 * The one seam between the scenarios and the systems they drive (docs/performance.md, "Principles of the bench"): our
 * broker over HTTP, the raw-SQL ceiling, pg-boss and RabbitMQ each implement {@link Adapter}. Scenarios only push
 * batches into one partition, pop/ack through consumers, and read back what was stored.
 */

/** Adapter names, as given to `--adapters`. */
export const ADAPTER_NAMES = ['ours', 'gateway', 'ceiling', 'pg-boss', 'rabbitmq'] as const
export type AdapterName = (typeof ADAPTER_NAMES)[number]

/** Scenario ids, as given to `--scenarios`. */
export const SCENARIO_IDS = ['push-1', 'push-100', 'drain', 'fanout', 'e2e', 'partitions', 'cli-push'] as const
/** A scenario of `--scenarios`, the soak that `--soak` adds, or a point of a `--scale` series (scale.ts). */
export type ScenarioId = (typeof SCENARIO_IDS)[number] | 'soak' | 'scale-drain' | 'scale-fanout'

/** What an adapter is in the report: the system under test, the no-broker ceiling, or a peer. */
export type AdapterRole = 'subject' | 'ceiling' | 'peer'

/**
 * The 200-byte message body of docs/performance.md, "Scenarios". `t` is the producer's send time (`performance.now()`,
 * ms).
 */
export interface BenchPayload {
  producer: number
  seq: number
  t: number
  customerId: string
  amount: number
  currency: string
  items: { sku: string; qty: number }[]
  note: string
}

/** One message as a producer hands it to an adapter. */
export interface OutgoingMessage {
  /** Unique transaction id: `<run tag>.<producer>.<seq>`. */
  id: string
  producer: number
  seq: number
  /** Partition index, 0..partitions-1 (systems without partitions ignore it). */
  partition: number
  payload: BenchPayload
}

/** One message as a consumer received it. */
export interface Delivery {
  producer: number
  seq: number
  /** The producer's send time from the payload (`performance.now()` of this process), ms. */
  sentAt: number
}

/** The queue a scenario run uses: fresh for every run, so runs never see each other's messages. */
export interface QueueSpec {
  /** Letters, digits, `-` and `_` only (pg-boss's rule is the strictest). */
  name: string
  /** Partitions the producers write to, numbered 0..partitions-1. */
  partitions: number
  /** Consumer groups; empty means queue mode (one competing set of consumers). */
  groups: readonly string[]
}

/** How one consumer of a scenario pops. */
export interface ConsumerOptions {
  /** A name from {@link QueueSpec.groups}, or undefined for queue mode. */
  group: string | undefined
  /** This consumer's index among the consumers of its group, and their number (static partition ownership). */
  index: number
  count: number
  /** Maximum messages per pop. */
  batch: number
  /** Partitions one pop may claim (our wildcard pop's `partitions`). */
  partitionsPerPop: number
  /** Long-poll budget of one pop, ms (adapters without long polling poll every 2 ms within it). */
  waitMs: number
}

/** A consumer: pop, then ack what was popped. */
export interface BenchConsumer {
  /** Waits up to the long-poll budget for up to `batch` messages; [] when none came or `signal` fired. */
  next(signal?: AbortSignal): Promise<Delivery[]>
  /** Acknowledges deliveries returned by the last {@link next}; resolves with the number that failed. */
  ack(deliveries: readonly Delivery[]): Promise<number>
  close(): Promise<void>
}

/** One open queue of an adapter. */
export interface BenchQueue {
  /** Stores one request's messages; resolves with one accepted flag per message, in order. */
  push(messages: readonly OutgoingMessage[]): Promise<boolean[]>
  consumer(options: ConsumerOptions): BenchConsumer
  /**
   * Reads back every stored message once (push-only scenarios), calling `onMessage` for each, until
   * `done()` or the deadline (`performance.now()` ms).
   */
  readBack(onMessage: (producer: number, seq: number) => void, done: () => boolean, deadline: number): Promise<void>
  /**
   * Stores messages `first`..`first + count - 1` of seed.ts's producer straight into the system's tables
   * (the scaling benchmark's backlog; seed.ts). Absent when the system cannot be seeded that way.
   */
  seedBacklog?(first: number, count: number): Promise<void>
  close(): Promise<void>
}

/** A system the benchmark can drive. */
export interface Adapter {
  readonly name: AdapterName
  readonly role: AdapterRole
  /** Label with version for the report, e.g. `pg-boss 10.4.2`. */
  readonly label: string
  supports(scenario: ScenarioId): boolean
  /** Pid whose process tree is "the broker" for CPU and RSS, when the system runs as its own process. */
  brokerPid(): number | undefined
  /** The broker's HTTP base URL, for scenarios that drive it through `queenctl` (cli-push); ours only. */
  serverUrl?(): string
  openQueue(spec: QueueSpec): Promise<BenchQueue>
  stop(): Promise<void>
}

/** Why an adapter did not run, for the report. */
export interface SkippedAdapter {
  name: AdapterName
  reason: string
}

/**
 * Reads producer, seq and send time from a payload that went through a system as JSON, into `into` (the
 * adapter's own fields for the ack). Fields are assigned rather than merged with object spread: on Node 20 a
 * spread costs 1-2 µs per object (a scratch loop: 190-250 µs per 100 deliveries against 4 µs assigned), which
 * at drain rates is a tenth of a core of load generator taken from the system under test.
 */
export function deliveryOf<T extends object>(data: unknown, into: T): T & Delivery {
  const payload = (typeof data === 'object' && data !== null ? data : {}) as Partial<BenchPayload>
  const delivery = into as T & Delivery
  delivery.producer = typeof payload.producer === 'number' ? payload.producer : -1
  delivery.seq = typeof payload.seq === 'number' ? payload.seq : -1
  delivery.sentAt = typeof payload.t === 'number' ? payload.t : Number.NaN
  return delivery
}

const NOTE_CHARS = 'abcdefghijklmnopqrstuvwxyz0123456789 '.repeat(8)
const PAYLOAD_BYTES = 200

/** Builds message `seq` of `producer` with a 200-byte JSON payload, stamped with the current time. */
export function makeMessage(tag: string, producer: number, seq: number, partition: number): OutgoingMessage {
  const payload: BenchPayload = {
    producer,
    seq,
    t: performance.now(),
    customerId: `cust-${(producer * 7919 + seq) % 100_000}`,
    amount: ((seq * 37) % 100_000) / 100,
    currency: 'EUR',
    items: [
      { sku: `sku-${seq % 1000}`, qty: 1 + (seq % 5) },
      { sku: `sku-${(seq + 500) % 1000}`, qty: 1 },
    ],
    note: '',
  }
  const base = JSON.stringify(payload).length
  payload.note = NOTE_CHARS.slice(0, Math.max(0, PAYLOAD_BYTES - base))
  return { id: `${tag}.${producer}.${seq}`, producer, seq, partition, payload }
}
