/**
 * The series of `npm run bench -- --scale` (issue 22): what each one varies, at which sizes (full and
 * `--quick`), and the scenario specs of the points that run through scenario-run.ts.
 */
import type { AdapterName } from './adapter.js'
import type { ScenarioSpec } from './scenarios.js'

export const SERIES_IDS = ['partitions', 'backlog', 'fanout', 'parked', 'stats'] as const
export type SeriesId = (typeof SERIES_IDS)[number]

/** Every size of one run of `--scale`. */
export interface ScaleSizes {
  /** Partitions of the drain series; 16 is the baseline of the drain target. */
  partitions: number[]
  /** Messages every drain point stores first and drains (the same at every partition count). */
  drainMessages: number
  /** Messages already stored before the push and pop windows of the backlog series. */
  backlogs: number[]
  /** Messages the backlog series' pop phase times (fewer when fewer are stored). */
  backlogPopMessages: number
  /** Longest pop phase of a backlog point, ms (a slow system is timed over what it popped by then). */
  backlogPopMaxMs: number
  groups: number[]
  /** Messages pushed in each fan-out point; every group receives all of them. */
  fanoutMessages: number
  parked: number[]
  /** Partitions of the stats refresh series, one message each, before 0, 1 %, 10 % of them change. */
  statsPartitions: number
  warmupMs: number
  windowMs: number
  /** How long a drain or fan-out point may take to deliver everything before the rest counts as lost. */
  drainTimeoutMs: number
}

export function scaleSizes(quick: boolean): ScaleSizes {
  return quick
    ? {
        partitions: [10, 16, 1_000, 10_000],
        drainMessages: 10_000,
        backlogs: [0, 100_000, 500_000],
        backlogPopMessages: 20_000,
        backlogPopMaxMs: 6_000,
        groups: [1, 4, 16, 64],
        fanoutMessages: 1_000,
        parked: [0, 1_000, 10_000],
        statsPartitions: 10_000,
        warmupMs: 1_000,
        windowMs: 3_000,
        drainTimeoutMs: 60_000,
      }
    : {
        partitions: [10, 16, 1_000, 10_000, 100_000],
        drainMessages: 200_000,
        backlogs: [0, 1_000_000, 5_000_000],
        backlogPopMessages: 100_000,
        backlogPopMaxMs: 30_000,
        groups: [1, 4, 16, 64],
        fanoutMessages: 5_000,
        parked: [0, 1_000, 10_000],
        statsPartitions: 100_000,
        warmupMs: 2_000,
        windowMs: 10_000,
        drainTimeoutMs: 600_000,
      }
}

/** The systems each series runs on, and why the others do not. */
export const SERIES_SYSTEMS: Record<SeriesId, { adapters: AdapterName[]; why: string }> = {
  partitions: { adapters: ['ours', 'ceiling'], why: 'pg-boss has no partitions' },
  backlog: { adapters: ['ours', 'ceiling', 'pg-boss'], why: '' },
  fanout: { adapters: ['ours', 'ceiling', 'pg-boss'], why: '' },
  parked: {
    adapters: ['ours'],
    why: 'the ceiling and pg-boss have no long poll: their consumers poll, so nothing is parked',
  },
  stats: { adapters: ['ours'], why: 'a stats snapshot is our broker’s own job' },
}

/**
 * Partitions one pop of 100 claims in the drain series: enough to fill the batch at the stored density
 * (messages per partition), 1 to 100. A fixed 100 made one pop claim all 16 partitions of a small queue
 * (the batch is a cap across them), so the other 7 consumers waited: 2.5k msg/s where 1 per pop gives 20k.
 */
export function partitionsPerPop(partitions: number, messages: number): number {
  const perPartition = Math.max(1, messages / partitions)
  return Math.min(100, Math.max(1, Math.ceil(100 / perPartition)))
}

/** A drain of `messages` over `partitions` partitions: pushes of 100 spread over 100 partitions, pops of 100. */
export function drainSpec(partitions: number, messages: number): ScenarioSpec {
  return {
    id: 'scale-drain',
    title: `drain ${messages.toLocaleString('en-US')} messages over ${partitions.toLocaleString('en-US')} partitions`,
    kind: 'drain',
    producers: 8,
    pushBatch: 100,
    partitions,
    spreadPartitions: true,
    groups: 0,
    consumersPerGroup: 8,
    popBatch: 100,
    partitionsPerPop: partitionsPerPop(partitions, messages),
    popWaitMs: 1000,
    messages,
  }
}

/** `messages` pushed by 4 producers (100 per push, 16 partitions) while `groups` groups x 2 consumers read. */
export function fanoutSpec(groups: number, messages: number): ScenarioSpec {
  return {
    id: 'scale-fanout',
    title: `fan-out to ${groups} consumer group(s) x 2 consumers`,
    kind: 'flow',
    producers: 4,
    pushBatch: 100,
    partitions: 16,
    spreadPartitions: false,
    groups,
    consumersPerGroup: 2,
    popBatch: 100,
    partitionsPerPop: 1,
    popWaitMs: 1000,
    messages,
  }
}
