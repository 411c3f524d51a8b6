/**
 * Aggregation over runs (median, min-max) and the committed targets of docs/performance.md, "Targets", each checked
 * and reported as pass/fail. Correctness (no lost, no duplicated message in any scenario) is a target
 * like the others but also decides the exit code.
 */
import type { AdapterName, ScenarioId } from './adapter.js'
import { median } from './measure.js'
import type { ScenarioResult } from './scenario-run.js'

/** Median and range of one figure over runs. */
export interface Stat {
  median?: number
  min?: number
  max?: number
}

/** All runs of one scenario on one adapter. */
export interface Aggregate {
  scenario: ScenarioId
  adapter: AdapterName
  label: string
  runs: number
  rateUnit: ScenarioResult['rateUnit']
  rate: Stat
  requestP50Ms: Stat
  requestP99Ms: Stat
  e2eP50Ms: Stat
  e2eP99Ms: Stat
  brokerRssMb: Stat
  brokerCpuPer100k: Stat
  pgCpuPer100k: Stat
  benchCpuPer100k: Stat
  otherCores: Stat
  stealCores: Stat
  busyCores: Stat
  /** Summed over runs. */
  lost: number
  duplicates: number
  unexpected: number
  refused: number
  errors: number
}

/** One checked target. */
export interface TargetCheck {
  target: string
  measured: string
  required: string
  pass: boolean
  /** Correctness targets fail the run (exit code 1); speed targets are reported. */
  correctness: boolean
  /**
   * Throughput targets: the cores the broker, PostgreSQL and the load generator would use together at the
   * required rate, at the CPU per message of this run (its busy cores scaled by required / measured rate).
   * More than the machine has means the target needs less CPU per message, not more concurrency.
   */
  coresAtTarget?: number
}

/** The reference broker's fan-out figure on this machine (docs/performance.md, "Targets"): 4 groups x 2 consumers. */
export const REFERENCE_FANOUT_DELIVERIES = 14_783
const RSS_LIMIT_MB = 150
/** docs/performance.md, "Targets": single-message pushes from 32 clients, messages/s. */
const PUSH_ONE_RATE = 8000

function stat(values: (number | undefined)[]): Stat {
  const defined = values.filter((v): v is number => v !== undefined && Number.isFinite(v))
  if (defined.length === 0) return {}
  return { median: median(defined), min: Math.min(...defined), max: Math.max(...defined) }
}

export function aggregate(results: readonly ScenarioResult[]): Aggregate[] {
  const groups = new Map<string, ScenarioResult[]>()
  for (const result of results) {
    const key = `${result.scenario}\u0000${result.adapter}`
    groups.set(key, [...(groups.get(key) ?? []), result])
  }
  return [...groups.values()].map((runs) => {
    const first = runs[0] as ScenarioResult
    const pick = (field: keyof ScenarioResult) => stat(runs.map((run) => run[field] as number | undefined))
    const sum = (field: 'lost' | 'duplicates' | 'unexpected' | 'refused' | 'errors') =>
      runs.reduce((total, run) => total + run[field], 0)
    return {
      scenario: first.scenario,
      adapter: first.adapter,
      label: first.label,
      runs: runs.length,
      rateUnit: first.rateUnit,
      rate: pick('rate'),
      requestP50Ms: pick('requestP50Ms'),
      requestP99Ms: pick('requestP99Ms'),
      e2eP50Ms: pick('e2eP50Ms'),
      e2eP99Ms: pick('e2eP99Ms'),
      brokerRssMb: pick('brokerRssMb'),
      brokerCpuPer100k: pick('brokerCpuPer100k'),
      pgCpuPer100k: pick('pgCpuPer100k'),
      benchCpuPer100k: pick('benchCpuPer100k'),
      otherCores: pick('otherCores'),
      stealCores: pick('stealCores'),
      busyCores: pick('busyCores'),
      lost: sum('lost'),
      duplicates: sum('duplicates'),
      unexpected: sum('unexpected'),
      refused: sum('refused'),
      errors: sum('errors'),
    }
  })
}

/**
 * ours / other for one scenario: the median over runs of the ratio within each run (targets compare with
 * the ceiling "measured in the same run"). For the latency scenario the figure is other's e2e p50 / ours
 * (higher is better for ours, like the throughput ratios); the rate there is fixed at 500 msg/s for both.
 */
export function ratio(
  results: readonly ScenarioResult[],
  scenario: ScenarioId,
  other: AdapterName,
): number | undefined {
  const ratios: number[] = []
  for (const mine of results) {
    if (mine.scenario !== scenario || mine.adapter !== 'ours') continue
    const them = runOf(results, scenario, other, mine.run)
    if (!them) continue
    const value =
      scenario === 'e2e'
        ? them.e2eP50Ms !== undefined && mine.e2eP50Ms
          ? them.e2eP50Ms / mine.e2eP50Ms
          : undefined
        : mine.rate !== undefined && them.rate
          ? mine.rate / them.rate
          : undefined
    if (value !== undefined) ratios.push(value)
  }
  return median(ratios)
}

/** Run `run` of `adapter` on `scenario`: the same run as ours is what a relative target compares with. */
function runOf(
  results: readonly ScenarioResult[],
  scenario: ScenarioId,
  adapter: AdapterName,
  run: number,
): ScenarioResult | undefined {
  return results.find((r) => r.scenario === scenario && r.adapter === adapter && r.run === run)
}

const fmt = (value: number | undefined, digits = 0) =>
  value === undefined ? 'n/a' : value.toLocaleString('en-US', { maximumFractionDigits: digits })

/**
 * `value` with `digits` decimals, or more when that rounding would land it on the other side of the target
 * (a ratio of 1.497 printed "1.5x" beside ">= 1.5x" and FAIL reads as a contradiction).
 */
export function fmtAgainst(value: number | undefined, digits: number, meets: (value: number) => boolean): string {
  if (value === undefined) return fmt(value)
  let shown = digits
  while (shown < 4 && meets(Number(value.toFixed(shown))) !== meets(value)) shown++
  return fmt(value, shown)
}

/**
 * The cores ours would keep busy at the rate a target asks: per run, its busy cores scaled by the required
 * rate over its measured rate (CPU per message taken as constant, which holds roughly: batching grows a
 * little with load), then the median over runs, like the ratios. `requiredRate(run)` gives the rate a run
 * must reach (for a relative target, from the other system's rate in that run). Undefined without figures.
 */
export function coresAtTarget(
  results: readonly ScenarioResult[],
  scenario: ScenarioId,
  requiredRate: (run: number) => number | undefined,
): number | undefined {
  const perRun: number[] = []
  for (const mine of results) {
    if (mine.scenario !== scenario || mine.adapter !== 'ours') continue
    const required = requiredRate(mine.run)
    if (mine.busyCores === undefined || !mine.rate || required === undefined) continue
    perRun.push((mine.busyCores * required) / mine.rate)
  }
  return median(perRun)
}

/** Checks every target that the scenarios which ran make checkable. */
export function checkTargets(
  results: readonly ScenarioResult[],
  aggregates: readonly Aggregate[],
  extra: { finalRssMb?: number; soak?: { flat: boolean; detail: string } },
): TargetCheck[] {
  const checks: TargetCheck[] = []
  const find = (scenario: ScenarioId, adapter: AdapterName) =>
    aggregates.find((a) => a.scenario === scenario && a.adapter === adapter)
  const add = (target: string, measured: string, required: string, pass: boolean, correctness = false) => {
    const check: TargetCheck = { target, measured, required, pass, correctness }
    checks.push(check)
    return check
  }

  // A speed target: its predicate decides both the result and how many decimals the measured figure needs.
  const addSpeed = (
    target: string,
    value: number | undefined,
    digits: number,
    unit: string,
    required: string,
    meets: (value: number) => boolean,
    cores?: { scenario: ScenarioId; requiredRate: (run: number) => number | undefined },
  ) => {
    const check = add(
      target,
      `${fmtAgainst(value, digits, meets)}${unit}`,
      required,
      value !== undefined && meets(value),
    )
    const estimate = cores && coresAtTarget(results, cores.scenario, cores.requiredRate)
    if (estimate !== undefined) check.coresAtTarget = estimate
  }

  // The rate a relative target asks of ours in one run: `factor` times the other system's rate in that run.
  const relative = (scenario: ScenarioId, other: AdapterName, factor: number) => ({
    scenario,
    requiredRate: (run: number) => {
      const rate = runOf(results, scenario, other, run)?.rate
      return rate === undefined ? undefined : factor * rate
    },
  })
  const absolute = (scenario: ScenarioId, rate: number) => ({ scenario, requiredRate: () => rate })
  const ceilingShare = (scenario: ScenarioId, target: string) => {
    const share = ratio(results, scenario, 'ceiling')
    if (share === undefined) return
    const cores = relative(scenario, 'ceiling', 0.4)
    addSpeed(target, share * 100, 1, ' % of the ceiling', '>= 40 %', (v) => v >= 40, cores)
  }
  ceilingShare('push-100', 'push 100/request vs the ceiling batched insert')
  const push1 = find('push-1', 'ours')?.rate.median
  if (push1 !== undefined) {
    const text = `>= ${fmt(PUSH_ONE_RATE)} msg/s`
    const cores = absolute('push-1', PUSH_ONE_RATE)
    addSpeed('push 1/request, 32 clients', push1, 0, ' msg/s', text, (v) => v >= PUSH_ONE_RATE, cores)
  }
  ceilingShare('drain', 'drain (pop 100 + ack) vs the ceiling pop+ack')
  const fanout = find('fanout', 'ours')?.rate.median
  if (fanout !== undefined) {
    const required = 1.5 * REFERENCE_FANOUT_DELIVERIES
    const text = `>= ${fmt(required)} (1.5x ${fmt(REFERENCE_FANOUT_DELIVERIES)})`
    const cores = absolute('fanout', required)
    addSpeed('fan-out to 4 groups', fanout, 0, ' deliveries/s', text, (v) => v >= required, cores)
  }
  const e2e = find('e2e', 'ours')
  if (e2e) {
    addSpeed('e2e latency at 500 msg/s, p50', e2e.e2eP50Ms.median, 1, ' ms', '<= 5 ms', (v) => v <= 5)
    addSpeed('e2e latency at 500 msg/s, p99', e2e.e2eP99Ms.median, 1, ' ms', '<= 25 ms', (v) => v <= 25)
  }
  // The gateway (issue 36): at least 80 % of the broker's direct rate in the same run, and what it adds to latency.
  for (const scenario of ['push-100', 'drain'] as const) {
    const through = find(scenario, 'gateway')?.rate.median
    const direct = find(scenario, 'ours')?.rate.median
    if (through === undefined || direct === undefined || direct === 0) continue
    const share = (through / direct) * 100
    addSpeed(`${scenario}: through the gateway vs direct`, share, 1, ' % of direct', '>= 80 %', (v) => v >= 80)
  }
  const e2eThrough = find('e2e', 'gateway')
  if (e2e && e2eThrough) {
    const added = (pick: (a: Aggregate) => number | undefined) => {
      const through = pick(e2eThrough)
      const direct = pick(e2e)
      return through === undefined || direct === undefined ? '?' : (through - direct).toFixed(1)
    }
    add(
      'e2e latency added by the gateway, p50 / p99',
      `+${added((a) => a.e2eP50Ms.median)} / +${added((a) => a.e2eP99Ms.median)} ms`,
      'reported',
      true,
    )
  }
  for (const scenario of new Set(results.map((r) => r.scenario))) {
    const versus = ratio(results, scenario, 'pg-boss')
    if (versus === undefined) continue
    const what = scenario === 'e2e' ? 'e2e p50 (pg-boss/ours)' : 'rate (ours/pg-boss)'
    // The e2e rate is fixed (its target is latency): no cores figure there.
    const cores = scenario === 'e2e' ? undefined : relative(scenario, 'pg-boss', 1.5)
    addSpeed(`${scenario}: ours vs pg-boss, ${what}`, versus, 2, 'x', '>= 1.5x', (v) => v >= 1.5, cores)
  }
  if (extra.finalRssMb !== undefined) {
    const required = `<= ${RSS_LIMIT_MB} MB`
    addSpeed('broker RSS after the full run', extra.finalRssMb, 1, ' MB', required, (v) => v <= RSS_LIMIT_MB)
  }
  if (extra.soak) add('broker RSS flat over the soak', extra.soak.detail, 'end <= 1.1x start', extra.soak.flat)
  for (const a of aggregates) {
    const bad = a.lost + a.duplicates + a.unexpected
    add(
      `${a.scenario} on ${a.adapter}: no lost, no duplicated message`,
      `lost ${a.lost}, dup ${a.duplicates}, unexpected ${a.unexpected}`,
      '0 / 0 / 0',
      bad === 0,
      true,
    )
  }
  return checks
}
