import { describe, expect, it } from 'vitest'
import type { AdapterName, ScenarioId } from '../../bench/adapter.js'
import type { ScenarioResult } from '../../bench/scenario-run.js'
import { cpuBetween } from '../../bench/measure.js'
import { aggregate, checkTargets } from '../../bench/targets.js'

/** One run's result of a scenario, with only what the target checks read. */
function result(scenario: ScenarioId, adapter: AdapterName, rate: number, run = 1): ScenarioResult {
  return { scenario, adapter, run, rate, rateUnit: 'msg/s' } as ScenarioResult
}

function check(results: ScenarioResult[], target: string) {
  const found = checkTargets(results, [], {}).find((c) => c.target === target)
  if (!found) throw new Error(`no check named ${target}`)
  return found
}

/** The check `target` for one run of `scenario`: ours at `ours` msg/s against `other` at `theirs`. */
function checkOneRun(scenario: ScenarioId, other: AdapterName, ours: number, theirs: number, target: string) {
  return check([result(scenario, 'ours', ours), result(scenario, other, theirs)], target)
}

describe('bench targets', () => {
  it('never prints a failed ratio as the threshold it missed', () => {
    const target = 'push-1: ours vs pg-boss, rate (ours/pg-boss)'
    const missed = checkOneRun('push-1', 'pg-boss', 1497, 1000, target)
    expect(missed).toMatchObject({ measured: '1.497x', required: '>= 1.5x', pass: false })

    const met = checkOneRun('push-1', 'pg-boss', 1503, 1000, target)
    expect(met).toMatchObject({ measured: '1.5x', pass: true })
  })

  it('shows a ceiling share just under 40 % with the decimals that make the miss visible', () => {
    const target = 'drain (pop 100 + ack) vs the ceiling pop+ack'
    const missed = checkOneRun('drain', 'ceiling', 39_996, 100_000, target)
    expect(missed).toMatchObject({ measured: '39.996 % of the ceiling', pass: false })

    const plain = checkOneRun('drain', 'ceiling', 29_600, 100_000, target)
    expect(plain).toMatchObject({ measured: '29.6 % of the ceiling', pass: false })
  })

  it('compares each run with the ceiling of the same run and takes the median', () => {
    const share = check(
      [
        result('push-100', 'ours', 20_000, 1),
        result('push-100', 'ceiling', 40_000, 1),
        result('push-100', 'ours', 18_000, 2),
        result('push-100', 'ceiling', 60_000, 2),
        result('push-100', 'ours', 19_000, 3),
        result('push-100', 'ceiling', 45_000, 3),
      ],
      'push 100/request vs the ceiling batched insert',
    )
    // Per run: 50 %, 30 %, 42.2 %; the median is 42.2 %.
    expect(share).toMatchObject({ measured: '42.2 % of the ceiling', pass: true })
  })
})

describe('cores a throughput target would take', () => {
  /** Run `run` of `adapter` on `scenario` at `rate` with `busyCores` of CPU in use. */
  function busyRun(scenario: ScenarioId, adapter: AdapterName, rate: number, busyCores: number, run = 1) {
    return { ...result(scenario, adapter, rate, run), busyCores }
  }

  function coresOf(results: ScenarioResult[], target: string): number | undefined {
    return checkTargets(results, aggregate(results), {}).find((c) => c.target === target)?.coresAtTarget
  }

  it('scales the busy cores of the run to the required rate', () => {
    // 3,000 msg/s on 1.5 cores is 0.5 ms of CPU per message: 8,000 msg/s would take 4 cores.
    expect(coresOf([busyRun('push-1', 'ours', 3000, 1.5)], 'push 1/request, 32 clients')).toBeCloseTo(4, 6)
    // Fan-out's target is 22,174.5 deliveries/s (1.5x the reference): twice this run's rate.
    expect(coresOf([busyRun('fanout', 'ours', 11_087.25, 1)], 'fan-out to 4 groups')).toBeCloseTo(2, 6)
  })

  it('takes each run against the other system in the same run, then the median, like the ratios', () => {
    const results = [
      busyRun('drain', 'ours', 20_000, 1.9, 1),
      busyRun('drain', 'ceiling', 45_000, 1.2, 1),
      busyRun('drain', 'ours', 18_000, 1.5, 2),
      busyRun('drain', 'ceiling', 60_000, 1.2, 2),
      busyRun('drain', 'ours', 19_000, 1.7, 3),
      busyRun('drain', 'ceiling', 40_000, 1.2, 3),
    ]
    // Per run: 1.9 x 18,000 / 20,000 = 1.71, 1.5 x 24,000 / 18,000 = 2.0, 1.7 x 16,000 / 19,000 = 1.43; the
    // median is 1.71 (medians of each figure taken apart would give 1.7 x 18,000 / 19,000 = 1.61).
    expect(coresOf(results, 'drain (pop 100 + ack) vs the ceiling pop+ack')).toBeCloseTo(1.71, 6)
    const peer = [busyRun('push-100', 'ours', 20_000, 1.6), busyRun('push-100', 'pg-boss', 20_000, 1.9)]
    // 1.5x pg-boss: 30,000 msg/s at 1.6 cores per 20,000.
    expect(coresOf(peer, 'push-100: ours vs pg-boss, rate (ours/pg-boss)')).toBeCloseTo(2.4, 6)
  })

  it('gives no figure for the latency targets, whose rate is fixed, nor without a CPU figure', () => {
    const results = [
      { ...busyRun('e2e', 'ours', 500, 1.7), e2eP50Ms: 20, e2eP99Ms: 80 },
      { ...busyRun('e2e', 'pg-boss', 500, 1.6), e2eP50Ms: 14, e2eP99Ms: 40 },
    ]
    const checks = checkTargets(results, aggregate(results), {})
    const e2eChecks = checks.filter((c) => c.target.startsWith('e2e') && !c.correctness)
    expect(e2eChecks.length).toBeGreaterThan(0)
    expect(e2eChecks.every((c) => c.coresAtTarget === undefined)).toBe(true)
    expect(coresOf([result('push-1', 'ours', 3000)], 'push 1/request, 32 clients')).toBeUndefined()
  })

  it('counts the broker, PostgreSQL and the load generator as busy cores, and only all of them', () => {
    const start = { atMs: 0, broker: 1, pg: 3, bench: 0.5 }
    const end = { atMs: 2000, broker: 2, pg: 4.5, bench: 1.5 }
    // 1 + 1.5 + 1 CPU seconds in 2 s.
    expect(cpuBetween(start, end).busyCores).toBeCloseTo(1.75, 6)
    // No broker process (the ceiling, pg-boss): PostgreSQL and the load generator.
    expect(cpuBetween({ ...start, broker: undefined }, { ...end, broker: undefined }).busyCores).toBeCloseTo(1.25, 6)
    // PostgreSQL on another machine, or a broker that exited during the window: no figure rather than a low one.
    expect(cpuBetween({ ...start, pg: undefined }, { ...end, pg: undefined }).busyCores).toBeUndefined()
    expect(cpuBetween(start, { ...end, broker: undefined }).busyCores).toBeUndefined()
  })
})
