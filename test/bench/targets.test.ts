import { describe, expect, it } from 'vitest'
import type { AdapterName, ScenarioId } from '../../bench/adapter.js'
import type { ScenarioResult } from '../../bench/scenario-run.js'
import { checkTargets } from '../../bench/targets.js'

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
