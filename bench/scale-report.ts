/**
 * The report of `npm run bench -- --scale`: the environment (as report.ts prints it, with the machine's
 * noise), one table and one or two SVG charts (charts.ts) per series, and the targets of issue 22 as
 * pass/fail. Written to bench/results/scale-<timestamp>/ (ignored by git) and printed.
 */
import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import type { AdapterName } from './adapter.js'
import { REPO_ROOT } from './broker-process.js'
import { renderLineChart, type ChartRow, type LineChart } from './charts.js'
import type { Environment } from './report.js'
import type { ScalePoint } from './scale-run.js'
import { SERIES_SYSTEMS, type ScaleSizes, type SeriesId } from './scale-series.js'

export interface ScaleReport {
  environment: Omit<Environment, 'runs' | 'warmupSeconds' | 'windowSeconds'>
  sizes: ScaleSizes
  points: ScalePoint[]
  targets: ScaleTarget[]
  charts: { file: string; title: string; series: SeriesId }[]
  finalBrokerRssMb?: number
}

export interface ScaleTarget {
  target: string
  measured: string
  required: string
  pass: boolean
  correctness?: boolean
}

function num(value: number | undefined, digits = 0): string {
  return value === undefined || !Number.isFinite(value)
    ? 'n/a'
    : value.toLocaleString('en-US', { maximumFractionDigits: digits })
}

function of(points: readonly ScalePoint[], series: SeriesId, adapter?: AdapterName): ScalePoint[] {
  return points.filter((p) => p.series === series && (adapter === undefined || p.adapter === adapter))
}

function at(points: readonly ScalePoint[], series: SeriesId, x: number): ScalePoint | undefined {
  return of(points, series, 'ours').find((p) => p.x === x)
}

/** Everything delivered once and no request failed. */
function complete(p: ScalePoint): boolean {
  return p.lost === 0 && p.duplicates === 0 && p.errors.length === 0
}

function noise(p: ScalePoint): string {
  const c = p.cpu
  return c ? `${num(c.busyCores, 2)} / ${num(c.otherCores, 2)} / ${num(c.stealCores, 2)}` : ''
}

/** The targets of issue 22, for our broker, at the run's largest sizes. */
export function scaleTargets(points: readonly ScalePoint[], sizes: ScaleSizes): ScaleTarget[] {
  const targets: ScaleTarget[] = []
  const most = Math.max(...sizes.partitions)
  const drainBase = at(points, 'partitions', 16)?.values.rate
  const drainMost = at(points, 'partitions', most)?.values.rate
  if (drainBase !== undefined && drainMost !== undefined) {
    targets.push({
      target: `drain at ${num(most)} partitions >= half the 16-partition drain`,
      measured: `${num(drainMost)} vs ${num(drainBase)} msg/s (${num((drainMost / drainBase) * 100)} %)`,
      required: '>= 50 %',
      pass: drainMost >= drainBase / 2,
    })
  }
  const p50Base = at(points, 'partitions', Math.min(...sizes.partitions))?.values.popP50Ms
  const p50Most = at(points, 'partitions', most)?.values.popP50Ms
  if (p50Base !== undefined && p50Most !== undefined) {
    targets.push({
      target: `pop p50 at ${num(most)} partitions <= 2x the ${num(Math.min(...sizes.partitions))}-partition p50`,
      measured: `${num(p50Most, 1)} vs ${num(p50Base, 1)} ms (${num(p50Most / p50Base, 2)}x)`,
      required: '<= 2x',
      pass: p50Most <= 2 * p50Base,
    })
  }
  const deepest = Math.max(...sizes.backlogs)
  const pushEmpty = at(points, 'backlog', 0)?.values.pushRate
  const pushDeep = at(points, 'backlog', deepest)?.values.pushRate
  if (pushEmpty !== undefined && pushDeep !== undefined) {
    targets.push({
      target: `push with ${num(deepest)} messages backlogged >= 80 % of the empty queue's`,
      measured: `${num(pushDeep)} vs ${num(pushEmpty)} msg/s (${num((pushDeep / pushEmpty) * 100)} %)`,
      required: '>= 80 %',
      pass: pushDeep >= 0.8 * pushEmpty,
    })
  }
  const fewest = Math.min(...sizes.groups)
  const widest = Math.max(...sizes.groups)
  const one = at(points, 'fanout', fewest)
  const many = at(points, 'fanout', widest)
  const cpuOne = one?.values.cpuUsPerDelivery
  const cpuMany = many?.values.cpuUsPerDelivery
  if (one && many && cpuOne !== undefined && cpuMany !== undefined) {
    targets.push({
      target: `fan-out throughput per group falls no faster than the CPU the groups need (${fewest} to ${widest} groups)`,
      measured: `per group ${num(one.values.perGroup)} to ${num(many.values.perGroup)} deliveries/s; CPU per delivery ${num(cpuOne, 1)} to ${num(cpuMany, 1)} µs (${num(cpuMany / cpuOne, 2)}x)${complete(many) ? '' : `; at ${widest} groups ${many.lost} messages not received in time`}`,
      required:
        'CPU per delivery <= 1.25x (the deliveries a CPU-second buys fall by at most 20 %), every message delivered',
      // A point whose groups did not all receive everything measured a stall, not the cost of the groups.
      pass: cpuMany <= 1.25 * cpuOne && complete(one) && complete(many),
    })
  }
  const all = at(points, 'stats', sizes.statsPartitions)?.values.refreshMs
  const onePercent = at(points, 'stats', Math.round(sizes.statsPartitions / 100))?.values.refreshMs
  if (all !== undefined && onePercent !== undefined) {
    targets.push({
      target: `stats refresh proportional to changed partitions (${num(sizes.statsPartitions)} partitions, 1 % changed)`,
      measured: `${num(onePercent)} ms with 1 % changed vs ${num(all)} ms with all changed (${num((onePercent / all) * 100, 1)} %)`,
      required: '<= 10 % of the all-changed refresh (proportional: 1 %, plus fixed costs)',
      pass: onePercent <= 0.1 * all,
    })
  }
  const broken = points.filter((p) => p.lost > 0 || p.duplicates > 0)
  targets.push({
    target: `every message delivered within the ${sizes.drainTimeoutMs / 1000} s deadline, none twice (drain and fan-out ledgers, backlog pops by id)`,
    measured:
      broken.length === 0
        ? 'all delivered once'
        : broken
            .map((p) => `${p.series}/${p.adapter}/${p.x}: ${p.lost} not received in time, ${p.duplicates} twice`)
            .join('; '),
    required: 'none missing or twice',
    pass: broken.length === 0,
    correctness: true,
  })
  return targets
}

function rows(points: readonly ScalePoint[], value: string, line: (p: ScalePoint) => string): ChartRow[] {
  return points.flatMap((p) => {
    const y = p.values[value]
    return y === undefined ? [] : [{ x: p.x, y, line: line(p) }]
  })
}

/** The charts of the points that ran. */
function chartsOf(points: readonly ScalePoint[]): { file: string; series: SeriesId; chart: LineChart }[] {
  const partitions = of(points, 'partitions')
  const backlog = of(points, 'backlog')
  const fanout = of(points, 'fanout')
  const parked = of(points, 'parked')
  const stats = of(points, 'stats')
  const list: { file: string; series: SeriesId; chart: LineChart }[] = [
    {
      file: 'scale-partitions-drain.svg',
      series: 'partitions',
      chart: {
        title: 'Drain rate by partition count (same total messages)',
        xTitle: 'partitions',
        yTitle: 'messages/s',
        xLog: true,
        rows: rows(partitions, 'rate', (p) => p.adapter),
      },
    },
    {
      file: 'scale-partitions-pop-latency.svg',
      series: 'partitions',
      chart: {
        title: 'Pop round trip by partition count',
        xTitle: 'partitions',
        yTitle: 'ms',
        xLog: true,
        yLog: true,
        rows: [
          ...rows(partitions, 'popP50Ms', (p) => `${p.adapter} p50`),
          ...rows(partitions, 'popP99Ms', (p) => `${p.adapter} p99`),
        ],
      },
    },
    {
      file: 'scale-backlog.svg',
      series: 'backlog',
      chart: {
        title: 'Push and pop rate by backlog depth',
        xTitle: 'messages backlogged',
        yTitle: 'messages/s',
        rows: [
          ...rows(backlog, 'pushRate', (p) => `${p.adapter} push`),
          ...rows(backlog, 'popRate', (p) => `${p.adapter} pop`),
        ],
      },
    },
    {
      file: 'scale-fanout-per-group.svg',
      series: 'fanout',
      chart: {
        title: 'Fan-out: deliveries/s per consumer group',
        xTitle: 'consumer groups',
        yTitle: 'deliveries/s per group',
        xLog: true,
        yLog: true,
        rows: rows(fanout, 'perGroup', (p) => p.adapter),
      },
    },
    {
      file: 'scale-fanout-total.svg',
      series: 'fanout',
      chart: {
        title: 'Fan-out: deliveries/s over all groups, and CPU µs per delivery',
        xTitle: 'consumer groups',
        yTitle: 'deliveries/s  |  µs per delivery',
        xLog: true,
        yLog: true,
        rows: [
          ...rows(fanout, 'total', (p) => `${p.adapter} deliveries/s`),
          ...rows(fanout, 'cpuUsPerDelivery', (p) => `${p.adapter} CPU µs/delivery`),
        ],
      },
    },
    {
      file: 'scale-parked-rss.svg',
      series: 'parked',
      chart: {
        title: 'Broker RSS with parked long-polls',
        xTitle: 'parked long-polls',
        yTitle: 'MB',
        rows: rows(parked, 'rssMb', () => 'ours peak RSS'),
      },
    },
    {
      file: 'scale-parked-cpu.svg',
      series: 'parked',
      chart: {
        title: 'CPU while long-polls wait (nothing to deliver)',
        xTitle: 'parked long-polls',
        yTitle: 'cores',
        rows: [...rows(parked, 'brokerCores', () => 'broker'), ...rows(parked, 'pgCores', () => 'PostgreSQL')],
      },
    },
    {
      file: 'scale-stats-refresh.svg',
      series: 'stats',
      chart: {
        title: 'Stats refresh time by partitions changed',
        xTitle: 'partitions changed since the last refresh',
        yTitle: 'ms',
        rows: rows(stats, 'refreshMs', () => 'ours'),
      },
    },
  ]
  return list.filter((c) => c.chart.rows.length > 0)
}

/** Renders every chart into `dir`; returns the files written. */
export async function writeScaleCharts(dir: string, points: readonly ScalePoint[]): Promise<ScaleReport['charts']> {
  const written: ScaleReport['charts'] = []
  for (const { file, series, chart } of chartsOf(points)) {
    await writeFile(path.join(dir, file), await renderLineChart(chart))
    written.push({ file, title: chart.title, series })
  }
  return written
}

function errorsCell(p: ScalePoint): string {
  return p.errors.length === 0 ? '' : p.errors.slice(0, 2).join('; ').replace(/\|/g, '/')
}

function table(header: string[], body: string[][]): string[] {
  return [
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...body.map((r) => `| ${r.join(' | ')} |`),
  ]
}

const TITLES: Record<SeriesId, string> = {
  partitions: 'Drain and pop latency by partition count',
  backlog: 'Push and pop with a backlog',
  fanout: 'Fan-out by consumer groups',
  parked: 'Parked long-polls: broker memory and CPU',
  stats: 'Stats refresh by partitions changed',
}

function seriesTable(series: SeriesId, points: ScalePoint[], sizes: ScaleSizes): string[] {
  const rss = (p: ScalePoint) => num(p.peakRssMb, 1)
  const v = (p: ScalePoint, k: string, d = 0) => num(p.values[k], d)
  switch (series) {
    case 'partitions':
      return [
        `${num(sizes.drainMessages)} messages stored (pushes of 100 spread over 100 partitions, not timed), then drained by 8 consumers popping 100 + ack; our pops claim enough partitions to fill 100 at the stored density (the ceiling pops one partition per statement, visiting its consumer's partitions in turn, so with few messages per partition it spends its statements on empty ones: there it is a naive design, not a ceiling). Pop round trip over pops that returned messages.`,
        '',
        ...table(
          [
            'partitions',
            'system',
            'drain msg/s',
            'partitions per pop',
            'pop p50 / p99 ms',
            'CPU s/100k broker / PG',
            'busy / other / steal cores',
            'broker peak RSS MB',
            'late / dup',
            'errors',
          ],
          points.map((p) => [
            num(p.x),
            p.adapter,
            v(p, 'rate'),
            p.adapter === 'ours' ? v(p, 'partitionsPerPop') : '1',
            `${v(p, 'popP50Ms', 1)} / ${v(p, 'popP99Ms', 1)}`,
            `${v(p, 'brokerCpuPer100k', 2)} / ${v(p, 'pgCpuPer100k', 2)}`,
            noise(p),
            rss(p),
            `${p.lost} / ${p.duplicates}`,
            errorsCell(p),
          ]),
        ),
      ]
    case 'backlog':
      return [
        `A queue of 16 partitions holding the backlog (seeded by SQL, see bench/README.md), then a ${sizes.windowMs / 1000} s push window (8 producers, 100 per push; CPU columns are this window), then 8 consumers pop 100 + ack until ${num(sizes.backlogPopMessages)} messages (at most ${sizes.backlogPopMaxMs / 1000} s); the pops take the oldest, the backlog's.`,
        '',
        ...table(
          [
            'backlog',
            'system',
            'push msg/s',
            'push p50 / p99 ms',
            'pop msg/s',
            'pop p50 / p99 ms',
            'seed s',
            'busy / other / steal cores',
            'broker peak RSS MB',
            'dup',
            'errors',
          ],
          points.map((p) => [
            num(p.x),
            p.adapter,
            v(p, 'pushRate'),
            `${v(p, 'pushP50Ms', 1)} / ${v(p, 'pushP99Ms', 1)}`,
            v(p, 'popRate'),
            `${v(p, 'popP50Ms', 1)} / ${v(p, 'popP99Ms', 1)}`,
            v(p, 'seedSeconds', 1),
            noise(p),
            rss(p),
            String(p.duplicates),
            errorsCell(p),
          ]),
        ),
      ]
    case 'fanout':
      return [
        `${num(sizes.fanoutMessages)} messages pushed (4 producers, 100 per push, 16 partitions) while every group (2 consumers each, pop 100 + ack) receives all of them; timed until every group has everything. CPU is broker + PostgreSQL + load generator.`,
        '',
        ...table(
          [
            'groups',
            'system',
            'deliveries/s total',
            'per group',
            'CPU µs per delivery',
            'busy / other / steal cores',
            'broker peak RSS MB',
            'late / dup',
            'errors',
          ],
          points.map((p) => [
            num(p.x),
            p.adapter,
            v(p, 'total'),
            v(p, 'perGroup'),
            v(p, 'cpuUsPerDelivery', 1),
            noise(p),
            rss(p),
            `${p.lost} / ${p.duplicates}`,
            errorsCell(p),
          ]),
        ),
      ]
    case 'parked':
      return [
        `Long-poll pops (\`wait=true\`, 120 s budget, one connection each) parked on an empty queue; CPU averaged over ${sizes.windowMs / 1000} s while they wait, after a ramp of 1 s per 1,000. "KB per parked poll" is the peak RSS less the RSS just before the first poll opened, over the polls.`,
        '',
        ...table(
          [
            'parked polls',
            'still parked',
            'broker RSS before MB',
            'broker peak RSS MB',
            'KB per parked poll',
            'broker cores',
            'PostgreSQL cores',
            'busy / other / steal cores',
            'errors',
          ],
          points.map((p) => [
            num(p.x),
            v(p, 'parked'),
            v(p, 'rssBeforeMb', 1),
            rss(p),
            v(p, 'kbPerPoll', 1),
            v(p, 'brokerCores', 3),
            v(p, 'pgCores', 3),
            noise(p),
            errorsCell(p),
          ]),
        ),
      ]
    case 'stats':
      return [
        `${num(sizes.statsPartitions)} partitions of one message each, refreshed with POST /api/v1/stats/refresh (round trip) first when all are new, then with none, 1 % and 10 % changed (one more message each). The broker runs with STATS_INTERVAL_MS=3600000 so its own job does not refresh between a change and the call.`,
        '',
        ...table(
          [
            'partitions changed',
            'refresh ms',
            'partition rows recomputed',
            'busy / other / steal cores',
            'broker peak RSS MB',
          ],
          points.map((p) => [num(p.x), v(p, 'refreshMs'), v(p, 'refreshedPartitions'), noise(p), rss(p)]),
        ),
      ]
  }
}

export function renderScaleMarkdown(report: ScaleReport): string {
  const env = report.environment
  const lines: string[] = [`# queenctl scaling benchmark (--scale), ${env.date}`, '']
  lines.push(
    `- mode: ${env.mode}; ${report.sizes.warmupMs / 1000} s warm-up + ${report.sizes.windowMs / 1000} s window where a point is windowed`,
    `- machine: ${env.cores} cores (${env.cpuModel}), ${env.ramGiB} GiB RAM, ${env.kernel}; Node ${env.node}`,
    `- PostgreSQL ${env.postgres.version}, ${env.postgres.origin}`,
    `- PostgreSQL settings: ${Object.entries(env.postgres.settings)
      .map(([k, val]) => `${k}=${val}`)
      .join(', ')}`,
    `- git: ${env.gitSha}`,
    `- systems: ${env.adapters.map((a) => `${a.name} = ${a.label}`).join('; ')}`,
  )
  for (const skipped of env.skipped) lines.push(`- skipped: ${skipped.name} (${skipped.reason})`)
  for (const note of env.notes) lines.push(`- note: ${note}`)
  if (report.finalBrokerRssMb !== undefined)
    lines.push(`- broker RSS after the run: ${num(report.finalBrokerRssMb, 1)} MB`)
  lines.push(
    '',
    'Noise: the broker, PostgreSQL and the load generator share this machine with other work, so every figure is',
    'noisy (one run, no medians). "busy / other / steal" are the average cores our three processes used, the cores',
    'unrelated processes used, and the cores the hypervisor took (`steal`) during the measured part: read a point',
    'with high "other" or "steal" as slowed by the machine, not by the system. "late" counts messages a ledger',
    `did not see delivered before the run's deadline (stored, but not received in time; the main bench calls them lost).`,
    '',
  )
  for (const series of Object.keys(TITLES) as SeriesId[]) {
    const points = of(report.points, series)
    if (points.length === 0) continue
    lines.push(`## ${TITLES[series]}`, '')
    const systems = SERIES_SYSTEMS[series]
    if (systems.why) lines.push(`Systems: ${systems.adapters.join(', ')} (${systems.why}).`, '')
    lines.push(...seriesTable(series, points, report.sizes), '')
    for (const chart of report.charts.filter((c) => c.series === series))
      lines.push(`![${chart.title}](${chart.file})`, '')
  }
  lines.push(
    '## Targets (issue 22)',
    '',
    ...table(
      ['target', 'measured', 'required', 'result'],
      report.targets.map((t) => [t.target, t.measured, t.required, t.pass ? 'pass' : '**FAIL**']),
    ),
  )
  const speed = report.targets.filter((t) => !t.correctness)
  lines.push('', `Targets met: ${speed.filter((t) => t.pass).length} of ${speed.length}.`)
  return `${lines.join('\n')}\n`
}

/** Writes report.md, results.json and the charts into bench/results/scale-<timestamp>/; returns the directory. */
export async function scaleResultsDir(date: string): Promise<string> {
  const dir = path.join(REPO_ROOT, 'bench', 'results', `scale-${date.replace(/[:.]/g, '-')}`)
  await mkdir(dir, { recursive: true })
  return dir
}

export async function writeScaleReport(dir: string, report: ScaleReport, markdown: string): Promise<void> {
  await writeFile(path.join(dir, 'report.md'), markdown)
  await writeFile(path.join(dir, 'results.json'), `${JSON.stringify(report, null, 2)}\n`)
}
