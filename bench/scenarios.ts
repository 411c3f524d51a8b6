/**
 * The scenarios of the issue (sized for this 2-core box, docs/performance.md, "Scenarios" and "Targets"): what each
 * produces and consumes. The runner (scenario-run.ts) turns a spec into a measurement for one adapter.
 */
import type { ScenarioId } from './adapter.js'

/**
 * How a scenario is driven:
 * - `push`: closed-loop producers for warm-up + window, no consumers; then everything stored is read back.
 * - `drain`: `messages` are stored first (not measured), then consumers pop + ack until all are received.
 * - `flow`: producers and consumers at once; producers send `messages` as fast as they can (closed loop),
 *   or at `ratePerSecond` for warm-up + window (open loop), and consumers receive until all are delivered.
 * - `cli`: `messages` written to an NDJSON file, pushed by one `queenctl push --file` process with
 *   `--batch pushBatch` (cli-push.ts); then everything stored is read back.
 */
export type ScenarioKind = 'push' | 'drain' | 'flow' | 'cli'

/** One scenario. */
export interface ScenarioSpec {
  id: ScenarioId
  title: string
  kind: ScenarioKind
  /** Closed-loop producer clients, or logical producers of the open-loop stream. */
  producers: number
  /** Messages per push request. */
  pushBatch: number
  partitions: number
  /** Spread each request over `pushBatch` consecutive partitions instead of one (many-partition scenario). */
  spreadPartitions: boolean
  /** Consumer groups; 0 = queue mode. */
  groups: number
  consumersPerGroup: number
  popBatch: number
  partitionsPerPop: number
  /** Long-poll budget per pop, ms. */
  popWaitMs: number
  /** Open-loop rate in messages/s (requests/s = rate / pushBatch); flow only. */
  ratePerSecond?: number
  /** Messages stored before draining (drain), or sent in total (closed-loop flow). */
  messages?: number
  /** What the quick mode changed, for the report. */
  quickNote?: string
}

/** The scenarios in run order. `quick` shrinks the fixed-size ones so a smoke run fits in 2 minutes. */
export function scenarioSpecs(quick: boolean): ScenarioSpec[] {
  const manyPartitions = quick ? 1_000 : 10_000
  return [
    {
      id: 'push-1',
      title: 'push, 1 message per request, 32 clients',
      kind: 'push',
      producers: 32,
      pushBatch: 1,
      partitions: 16,
      spreadPartitions: false,
      groups: 0,
      consumersPerGroup: 0,
      popBatch: 100,
      partitionsPerPop: 1,
      popWaitMs: 1000,
    },
    {
      id: 'push-100',
      title: 'push, 100 messages per request, 8 clients',
      kind: 'push',
      producers: 8,
      pushBatch: 100,
      partitions: 16,
      spreadPartitions: false,
      groups: 0,
      consumersPerGroup: 0,
      popBatch: 100,
      partitionsPerPop: 1,
      popWaitMs: 1000,
    },
    {
      id: 'drain',
      title: 'drain: pop 100 + ack, 8 consumers, queue mode',
      kind: 'drain',
      producers: 8,
      pushBatch: 100,
      partitions: 16,
      spreadPartitions: false,
      groups: 0,
      consumersPerGroup: 8,
      popBatch: 100,
      partitionsPerPop: 1,
      popWaitMs: 1000,
      messages: quick ? 20_000 : 100_000,
      quickNote: quick ? '20 000 messages instead of 100 000' : undefined,
    },
    {
      id: 'fanout',
      title: 'fan-out: 4 consumer groups x 2 consumers, push and pop 100',
      kind: 'flow',
      producers: 4,
      pushBatch: 100,
      partitions: 16,
      spreadPartitions: false,
      groups: 4,
      consumersPerGroup: 2,
      popBatch: 100,
      partitionsPerPop: 1,
      popWaitMs: 1000,
      messages: quick ? 10_000 : 50_000,
      quickNote: quick ? '10 000 messages instead of 50 000' : undefined,
    },
    {
      id: 'e2e',
      title: 'end-to-end latency, 1 message per push at 500 msg/s, 8 long-poll consumers',
      kind: 'flow',
      producers: 16,
      pushBatch: 1,
      partitions: 16,
      spreadPartitions: false,
      groups: 0,
      consumersPerGroup: 8,
      popBatch: 100,
      partitionsPerPop: 1,
      popWaitMs: 1000,
      ratePerSecond: 500,
    },
    {
      id: 'partitions',
      title: `${manyPartitions.toLocaleString('en-US')} partitions: push 100 over 100 partitions, 8 consumers`,
      kind: 'flow',
      producers: 4,
      pushBatch: 100,
      partitions: manyPartitions,
      spreadPartitions: true,
      groups: 0,
      consumersPerGroup: 8,
      popBatch: 100,
      partitionsPerPop: 100,
      popWaitMs: 1000,
      messages: manyPartitions * 10,
      quickNote: quick ? '1 000 partitions (10 000 messages) instead of 10 000 (100 000)' : undefined,
    },
    {
      id: 'cli-push',
      title: 'queenctl push of an NDJSON file, --batch 100, one process (start-up included)',
      kind: 'cli',
      producers: 1,
      pushBatch: 100,
      partitions: 16,
      spreadPartitions: false,
      groups: 0,
      consumersPerGroup: 0,
      popBatch: 100,
      partitionsPerPop: 1,
      popWaitMs: 1000,
      messages: quick ? 20_000 : 50_000,
      quickNote: quick ? '20 000 messages instead of 50 000' : undefined,
    },
  ]
}

/** The soak (`--soak`): our broker at a steady 2 000 msg/s, push 10, 4 long-poll consumers. */
export function soakSpec(): ScenarioSpec {
  return {
    id: 'soak',
    title: 'soak: 2 000 msg/s (push 10), 4 long-poll consumers, broker RSS sampled every 10 s',
    kind: 'flow',
    producers: 16,
    pushBatch: 10,
    partitions: 16,
    spreadPartitions: false,
    groups: 0,
    consumersPerGroup: 4,
    popBatch: 100,
    partitionsPerPop: 1,
    popWaitMs: 1000,
    ratePerSecond: 2000,
  }
}

/** The partition of message `index` (0..pushBatch-1) in request `request` of producer `producer`. */
export function partitionOf(spec: ScenarioSpec, producer: number, request: number, index: number): number {
  const slot = request * spec.producers + producer
  return spec.spreadPartitions ? (slot * spec.pushBatch + index) % spec.partitions : slot % spec.partitions
}
