/**
 * The report of one `npm run bench` (docs/performance.md, "The report"): the environment (date, cores, RAM, Node,
 * PostgreSQL version and settings, git SHA), one row per scenario and system with median (min-max), the ratios
 * ours/ceiling and ours/peer, and the targets as pass/fail. Written as report.md and results.json under
 * bench/results/<timestamp>/ (ignored by git), and printed.
 */
import { execFileSync } from 'node:child_process'
import { mkdir, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import type { AdapterName, SkippedAdapter } from './adapter.js'
import { REPO_ROOT } from './broker-process.js'
import { median } from './measure.js'
import type { ScenarioResult } from './scenario-run.js'
import type { ScenarioSpec } from './scenarios.js'
import { ratio, type Aggregate, type Stat, type TargetCheck } from './targets.js'
import { MEMORY_KINDS, type MemoryMap } from './memory-map.js'

/** Where and how the run happened. */
export interface Environment {
  date: string
  cores: number
  cpuModel: string
  ramGiB: number
  kernel: string
  node: string
  gitSha: string
  postgres: { version: string; origin: string; settings: Record<string, string> }
  mode: string
  runs: number
  warmupSeconds: number
  windowSeconds: number
  adapters: { name: AdapterName; label: string }[]
  skipped: SkippedAdapter[]
  notes: string[]
}

/** Everything results.json holds. */
export interface BenchReport {
  environment: Environment
  scenarios: ScenarioSpec[]
  results: ScenarioResult[]
  aggregates: Aggregate[]
  targets: TargetCheck[]
  soak?: { samples: { minute: number; rssMb: number }[]; result?: ScenarioResult }
  finalBrokerRssMb?: number
  /** `--memory-map`: the broker's memory by kind at idle. */
  idleBrokerMemory?: MemoryMap
}

export function gitSha(): string {
  try {
    const sha = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim()
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src'], { cwd: REPO_ROOT, encoding: 'utf8' })
    return dirty.trim() ? `${sha} (src/ has uncommitted changes)` : sha
  } catch {
    return 'unknown'
  }
}

export function machineFacts(): Pick<Environment, 'cores' | 'cpuModel' | 'ramGiB' | 'kernel' | 'node'> {
  return {
    cores: os.availableParallelism(),
    cpuModel: os.cpus()[0]?.model.trim() ?? 'unknown',
    ramGiB: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
    kernel: `${os.type()} ${os.release()}`,
    node: process.version,
  }
}

function num(value: number | undefined, digits = 0): string {
  return value === undefined ? 'n/a' : value.toLocaleString('en-US', { maximumFractionDigits: digits })
}

/** "median (min-max)" when there were several runs, else the value. */
function show(s: Stat, digits = 0): string {
  if (s.median === undefined) return 'n/a'
  if (s.min === undefined || s.max === undefined || s.min === s.max) return num(s.median, digits)
  return `${num(s.median, digits)} (${num(s.min, digits)}-${num(s.max, digits)})`
}

function pair(a: Stat, b: Stat, digits = 1): string {
  if (a.median === undefined && b.median === undefined) return ''
  return `${num(a.median, digits)} / ${num(b.median, digits)}`
}

/**
 * The broker's peak RSS in a scenario (sampled every 500 ms from the start of the scenario to the end of its
 * read-back): the median over runs, with min-max when there were several. The aggregate carries only the RSS
 * at the end.
 */
function peakRss(results: readonly ScenarioResult[], row: Aggregate): Stat {
  const peaks = results
    .filter((r) => r.scenario === row.scenario && r.adapter === row.adapter)
    .map((r) => r.brokerRssMaxMb)
    .filter((v): v is number => v !== undefined && Number.isFinite(v))
  if (peaks.length === 0) return {}
  return { median: median(peaks), min: Math.min(...peaks), max: Math.max(...peaks) }
}

function ratioCell(results: readonly ScenarioResult[], row: Aggregate, other: AdapterName): string {
  if (row.adapter !== 'ours') return ''
  const value = ratio(results, row.scenario, other)
  return value === undefined ? '' : `${num(value, 2)}x`
}

/** The report as markdown. */
/**
 * CPU per delivery, fan-out against drain (issue 39, part 5). The table's CPU is per 100k messages, and a fan-out
 * message is delivered once per group and pushed in the same window, so its figure is not a delivery's cost: here
 * it is divided by the groups, and shown again with push-100's CPU per message taken out first.
 */
function deliveryCpuLines(report: BenchReport): string[] {
  const fanout = report.scenarios.find((spec) => spec.id === 'fanout')
  if (!fanout || fanout.groups <= 0) return []
  const lines: string[] = []
  const perMessageUs = (scenario: string, adapter: AdapterName, key: 'brokerCpuPer100k' | 'pgCpuPer100k') => {
    const row = report.aggregates.find((a) => a.scenario === scenario && a.adapter === adapter)
    const value = row?.[key].median
    return value === undefined ? undefined : value * 10
  }
  for (const adapter of new Set(report.aggregates.filter((a) => a.scenario === 'fanout').map((a) => a.adapter))) {
    const cells = (['brokerCpuPer100k', 'pgCpuPer100k'] as const).map((key) => {
      const drain = perMessageUs('drain', adapter, key)
      const fan = perMessageUs('fanout', adapter, key)
      const push = perMessageUs('push-100', adapter, key)
      if (fan === undefined) return undefined
      const delivered = fan / fanout.groups
      const withoutPush = push === undefined ? undefined : (fan - push) / fanout.groups
      return `${key === 'brokerCpuPer100k' ? 'broker' : 'PostgreSQL'} ${num(delivered, 1)} µs per fan-out delivery${withoutPush === undefined ? '' : ` (${num(withoutPush, 1)} without the push)`}${drain === undefined ? '' : `, ${num(drain, 1)} per drain delivery`}`
    })
    if (cells.every((cell) => cell !== undefined)) lines.push(`- ${adapter}: ${cells.join('; ')}`)
  }
  return lines.length === 0
    ? []
    : ['', `CPU per delivery (fan-out to ${fanout.groups} groups against drain):`, '', ...lines]
}

/** `--memory-map`: the broker's memory by kind at idle and at each scenario's peak (memory-map.ts), MB. */
function memoryMapTable(report: BenchReport): string[] {
  const rows: [string, MemoryMap][] = []
  if (report.idleBrokerMemory) rows.push(['idle', report.idleBrokerMemory])
  for (const r of report.results) {
    const run = report.environment.runs > 1 ? `, run ${r.run}` : ''
    if (r.brokerMemoryAtPeak) rows.push([`${r.scenario} peak (${r.adapter}${run})`, r.brokerMemoryAtPeak])
  }
  if (rows.length === 0) return []
  return [
    '',
    "Where the broker's memory is (`--memory-map`, MB of RSS by kind, bench/memory-map.ts):",
    '',
    `| when | RSS | ${MEMORY_KINDS.map(([, label]) => label).join(' | ')} |`,
    `|---|---:|${MEMORY_KINDS.map(() => '---:').join('|')}|`,
    ...rows.map(
      ([when, map]) =>
        `| ${when} | ${num(map.total, 1)} | ${MEMORY_KINDS.map(([kind]) => num(map[kind], 1)).join(' | ')} |`,
    ),
  ]
}

export function renderMarkdown(report: BenchReport): string {
  const env = report.environment
  const lines: string[] = []
  lines.push(`# queenctl benchmark, ${env.date}`, '')
  lines.push(
    `- mode: ${env.mode}; ${env.runs} run(s), ${env.warmupSeconds} s warm-up + ${env.windowSeconds} s window per windowed scenario`,
    `- machine: ${env.cores} cores (${env.cpuModel}), ${env.ramGiB} GiB RAM, ${env.kernel}; Node ${env.node}`,
    `- PostgreSQL ${env.postgres.version}, ${env.postgres.origin}`,
    `- PostgreSQL settings: ${Object.entries(env.postgres.settings)
      .map(([k, v]) => `${k}=${v}`)
      .join(', ')}`,
    `- git: ${env.gitSha}`,
    `- systems: ${env.adapters.map((a) => `${a.name} = ${a.label}`).join('; ')}`,
  )
  for (const skipped of env.skipped) lines.push(`- skipped: ${skipped.name} (${skipped.reason})`)
  for (const note of env.notes) lines.push(`- note: ${note}`)
  lines.push('')
  lines.push(
    'Rates are messages/s in the window (deliveries/s summed over groups for fan-out; drain, fan-out and partitions',
    'time a fixed number of messages until all are delivered). Request latency is the push round trip (the pop round',
    'trip for drain). CPU is seconds per 100k messages: broker (child process), PostgreSQL (postmaster and its',
    'backends) and the load generator (this process, which also hosts pg-boss and the ceiling). "other / steal" are',
    "the average numbers of cores used by unrelated processes and taken by the hypervisor (a virtual machine's",
    '`steal` time) during the measurement: noise on a shared machine. "busy" is the cores the broker, PostgreSQL',
    'and the load generator used together: close to the core count, the scenario is CPU-bound. "broker RSS" is the',
    "peak of the broker's resident memory during the scenario (sampled every 500 ms, read-back included) and its RSS",
    'when the scenario ended.',
    'Fan-out and partitions run their producers flat out, so their e2e latency includes queueing. Ratio columns are',
    'ours/other on the rate (higher is better for ours); for e2e, where the rate is fixed, they are other/ours on the',
    'e2e p50. "lost / dup" are counted by message id over every delivery (push scenarios read everything back).',
    '',
  )
  const multi = env.runs > 1 ? ' (min-max)' : ''
  lines.push(
    `| scenario | system | rate${multi} | req p50 / p99 ms | e2e p50 / p99 ms | broker RSS MB peak / end | CPU s/100k broker / PG / load gen | busy / other / steal cores | lost / dup | ours/ceiling | ours/pg-boss | ours/rabbitmq |`,
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
  )
  for (const spec of report.scenarios) {
    for (const row of report.aggregates.filter((a) => a.scenario === spec.id)) {
      const cpu = [row.brokerCpuPer100k, row.pgCpuPer100k, row.benchCpuPer100k].map((s) => num(s.median, 2)).join(' / ')
      lines.push(
        `| ${spec.id} | ${row.adapter} | ${show(row.rate)} ${row.rateUnit} | ${pair(row.requestP50Ms, row.requestP99Ms)} | ${pair(row.e2eP50Ms, row.e2eP99Ms)} | ${show(peakRss(report.results, row), 1)} / ${num(row.brokerRssMb.median, 1)} | ${cpu} | ${num(row.busyCores.median, 2)} / ${num(row.otherCores.median, 2)} / ${num(row.stealCores.median, 2)} | ${row.lost} / ${row.duplicates} | ${ratioCell(report.results, row, 'ceiling')} | ${ratioCell(report.results, row, 'pg-boss')} | ${ratioCell(report.results, row, 'rabbitmq')} |`,
      )
    }
  }
  lines.push('', 'Scenarios:', '')
  for (const spec of report.scenarios) {
    const cliRss = report.results.filter((r) => r.scenario === spec.id && r.cliRssMb !== undefined)
    const rssNote =
      cliRss.length > 0 ? `; queenctl peak RSS ${cliRss.map((r) => num(r.cliRssMb, 1)).join(', ')} MB` : ''
    lines.push(`- ${spec.id}: ${spec.title}${spec.quickNote ? ` (quick mode: ${spec.quickNote})` : ''}${rssNote}`)
  }
  const failures = report.results.filter(
    (r) => r.errors > 0 || r.lost > 0 || r.duplicates > 0 || r.unexpected > 0 || r.refused > 0,
  )
  if (failures.length > 0) {
    lines.push('', 'Errors and ledger findings:', '')
    for (const r of failures) {
      const detail = [...r.errorSample, ...r.lostSample.map((id) => `lost ${id}`)].join('; ')
      lines.push(
        `- ${r.scenario} / ${r.adapter} / run ${r.run}: ${r.errors} errors, ${r.refused} messages refused (${r.storedAfterRefusal} of them stored anyway), lost ${r.lost}, dup ${r.duplicates}, unexpected ${r.unexpected}${detail ? `: ${detail}` : ''}`,
      )
    }
  }
  lines.push(...deliveryCpuLines(report))
  lines.push(...memoryMapTable(report))
  if (report.soak) {
    lines.push('', 'Soak (broker RSS by minute):', '')
    lines.push(report.soak.samples.map((s) => `${num(s.minute, 1)} min: ${num(s.rssMb, 1)} MB`).join(', '))
  }
  lines.push(
    '',
    '## Targets (docs/performance.md, "Targets")',
    '',
    `"busy cores at the target": the cores the broker, PostgreSQL and the load generator would use together at the`,
    `required rate with this run's CPU per message (the median over runs). Near or above ${env.cores}, the machine's count,`,
    'the target needs less CPU per message rather than more concurrency.',
    '',
    '| target | measured | required | result | busy cores at the target |',
    '|---|---|---|---|---|',
  )
  for (const check of report.targets) {
    const cores = check.coresAtTarget === undefined ? '' : `${num(check.coresAtTarget, 1)} of ${env.cores}`
    lines.push(
      `| ${check.target} | ${check.measured} | ${check.required} | ${check.pass ? 'pass' : '**FAIL**'} | ${cores} |`,
    )
  }
  const speed = report.targets.filter((t) => !t.correctness)
  const correctness = report.targets.filter((t) => t.correctness)
  lines.push(
    '',
    `Speed targets met: ${speed.filter((t) => t.pass).length} of ${speed.length}. Correctness: ${
      correctness.every((t) => t.pass) ? 'PASS (no lost or duplicated message)' : '**FAIL**'
    }.`,
  )
  return `${lines.join('\n')}\n`
}

/** Writes report.md and results.json; returns the directory. */
export async function writeReport(report: BenchReport, markdown: string): Promise<string> {
  const stamp = report.environment.date.replace(/[:.]/g, '-')
  const dir = path.join(REPO_ROOT, 'bench', 'results', stamp)
  await mkdir(dir, { recursive: true })
  await writeFile(path.join(dir, 'report.md'), markdown)
  await writeFile(path.join(dir, 'results.json'), `${JSON.stringify(report, null, 2)}\n`)
  return dir
}
