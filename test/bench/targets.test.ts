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
  /** One run of `adapter` on `scenario` at `rate` with `busyCores` of CPU in use. */
  function busyRun(scenario: ScenarioId, adapter: AdapterName, rate: number, busyCores: number): ScenarioResult {
    return { ...result(scenario, adapter, rate), busyCores }
  }

  function coresOf(results: ScenarioResult[], target: string): number | undefined {
    return checkTargets(results, aggregate(results), {}).find((c) => c.target === target)?.coresAtTarget
  }

  it('scales the busy cores of the run to the required rate', () => {
    // 3,000 msg/s on 1.5 cores is 0.5 ms of CPU per message: 8,000 msg/s would take 4 cores.
    expect(coresOf([busyRun('push-1', 'ours', 3000, 1.5)], 'push 1/request, 32 clients')).toBeCloseTo(4, 6)
  })

  it('takes the required rate of a relative target from the other system', () => {
    const results = [busyRun('drain', 'ours', 20_000, 1.8), busyRun('drain', 'ceiling', 60_000, 1.2)]
    // 40 % of the ceiling's 60,000 is 24,000 msg/s: 1.2x our rate, so 1.2x our 1.8 cores.
    expect(coresOf(results, 'drain (pop 100 + ack) vs the ceiling pop+ack')).toBeCloseTo(2.16, 6)
    const peer = [busyRun('push-100', 'ours', 20_000, 1.6), busyRun('push-100', 'pg-boss', 20_000, 1.9)]
    // 1.5x pg-boss: 30,000 msg/s at 1.6 cores per 20,000.
    expect(coresOf(peer, 'push-100: ours vs pg-boss, rate (ours/pg-boss)')).toBeCloseTo(2.4, 6)
  })

  it('gives no figure for the latency targets, whose rate is fixed', () => {
    const results = [
      { ...busyRun('e2e', 'ours', 500, 1.7), e2eP50Ms: 20, e2eP99Ms: 80 },
      { ...busyRun('e2e', 'pg-boss', 500, 1.6), e2eP50Ms: 14, e2eP99Ms: 40 },
    ]
    const checks = checkTargets(results, aggregate(results), {})
    const e2eChecks = checks.filter((c) => c.target.startsWith('e2e') && !c.correctness)
    expect(e2eChecks.map((c) => c.target)).toHaveLength(3)
    expect(e2eChecks.every((c) => c.coresAtTarget === undefined)).toBe(true)
  })

  it('counts the broker, PostgreSQL and the load generator as busy cores', () => {
    const start = { atMs: 0, broker: 1, pg: 3, bench: 0.5 }
    const end = { atMs: 2000, broker: 2, pg: 4.5, bench: 1.5 }
    // 1 + 1.5 + 1 CPU seconds in 2 s.
    expect(cpuBetween(start, end).busyCores).toBeCloseTo(1.75, 6)
  })
})
