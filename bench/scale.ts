/**
 * `npm run bench -- --scale` (issue 22): how each cost grows with the data, one series at a time
 * (scale-series.ts), on our broker and, where they can do the same work, the raw-SQL ceiling and pg-boss.
 * Starts its own PostgreSQL and broker like the main bench, runs the points (scale-run.ts), writes the
 * report and its charts (scale-report.ts) and stops everything it started.
 */
import path from 'node:path'
import type { Adapter, AdapterName, SkippedAdapter } from './adapter.js'
import { ensureBuilt, REPO_ROOT, startBrokerProcess, type BrokerProcess } from './broker-process.js'
import { CeilingAdapter } from './ceiling.js'
import { treeRssBytes } from './measure.js'
import { OursAdapter } from './ours.js'
import { PgBossAdapter } from './pgboss.js'
import { startBenchPostgres } from './postgres.js'
import { gitSha, machineFacts } from './report.js'
import {
  backlogPoint,
  fanoutPoint,
  parkedPoint,
  partitionsPoint,
  statsPoints,
  type ScaleContext,
  type ScalePoint,
} from './scale-run.js'
import {
  renderScaleMarkdown,
  scaleResultsDir,
  scaleTargets,
  writeScaleCharts,
  writeScaleReport,
  type ScaleReport,
} from './scale-report.js'
import { scaleSizes, SERIES_SYSTEMS, type SeriesId } from './scale-series.js'

export interface ScaleOptions {
  quick: boolean
  series: SeriesId[]
  adapters: AdapterName[]
  build: boolean
  label: string
}

/** The broker's own stats job would refresh between a change and the measured refresh: once an hour here. */
const BROKER_ENV = { STATS_INTERVAL_MS: '3600000' }

/** Runs the series; resolves with the exit code (1 when a message was lost or duplicated, or nothing ran). */
export async function runScale(options: ScaleOptions, print: (line: string) => void): Promise<number> {
  const started = Date.now()
  const log = (line: string) => print(`${Math.round((Date.now() - started) / 1000)}s ${line}`)
  const sizes = scaleSizes(options.quick)
  const cleanups: (() => Promise<void>)[] = []
  const cleanup = async () => {
    for (const stop of cleanups.splice(0).reverse()) await stop().catch((e: unknown) => log(`cleanup: ${String(e)}`))
  }
  const onSignal = () => {
    log('interrupted: stopping everything this run started')
    void cleanup().finally(() => process.exit(130))
  }
  process.once('SIGINT', onSignal)
  process.once('SIGTERM', onSignal)

  const points: ScalePoint[] = []
  const notes: string[] = [
    'the broker runs with STATS_INTERVAL_MS=3600000 (its stats job off during the run; the stats series calls the refresh itself)',
  ]
  const skipped: SkippedAdapter[] = []
  const adapters: Adapter[] = []
  let pgFacts: ScaleReport['environment']['postgres'] = { version: 'not started', origin: '', settings: {} }
  let broker: BrokerProcess | undefined
  let finalRssMb: number | undefined
  try {
    if (options.adapters.includes('ours') && options.build) await ensureBuilt(log)
    const pg = await startBenchPostgres(log)
    cleanups.push(() => pg.stop())
    pgFacts = { version: pg.version, origin: pg.origin, settings: pg.settings }
    log(`PostgreSQL ${pg.version}: ${pg.origin}`)
    if (options.adapters.includes('ours')) {
      const started = await startBrokerProcess(pg, { extraEnv: BROKER_ENV })
      broker = started
      cleanups.push(() => started.stop())
      adapters.push(
        new OursAdapter(started, `${options.label} (node bin/run.js serve, pid ${started.pid})`, pg.connection),
      )
      log(`broker pid ${started.pid} on ${started.url}`)
    }
    if (options.adapters.includes('ceiling')) adapters.push(await CeilingAdapter.start(pg.connection))
    if (options.adapters.includes('pg-boss')) adapters.push(await PgBossAdapter.start(pg.connection))
    for (const adapter of adapters) cleanups.push(() => adapter.stop())
    const context: ScaleContext = { sizes, postmasterPid: pg.postmasterPid, settle: () => pg.settle(), log }

    const run = async (
      series: SeriesId,
      adapter: Adapter,
      x: number,
      point: () => Promise<ScalePoint | ScalePoint[]>,
    ) => {
      if (adapter.name === 'ours' && broker && !broker.alive()) {
        notes.push(`${series} on ours at ${x}: skipped, the broker process has exited`)
        return
      }
      log(`${series} on ${adapter.name} at ${x.toLocaleString('en-US')}`)
      try {
        const got = await point()
        for (const p of Array.isArray(got) ? got : [got]) {
          points.push(p)
          const figures = Object.entries(p.values)
            .map(([k, v]) => `${k} ${v === undefined ? 'n/a' : v.toFixed(1)}`)
            .join(', ')
          log(
            `  x=${p.x}: ${figures}; peak RSS ${p.peakRssMb?.toFixed(1) ?? 'n/a'} MB; lost ${p.lost} dup ${p.duplicates}${p.errors.length ? `; errors: ${p.errors[0]}` : ''}`,
          )
        }
      } catch (error) {
        log(`  failed: ${String(error)}`)
        notes.push(`${series} on ${adapter.name} at ${x}: did not complete: ${String(error).slice(0, 300)}`)
      }
    }
    for (const series of options.series) {
      const systems = adapters.filter((a) => SERIES_SYSTEMS[series].adapters.includes(a.name))
      for (const adapter of systems) {
        if (series === 'partitions')
          for (const n of sizes.partitions) await run(series, adapter, n, () => partitionsPoint(adapter, n, context))
        if (series === 'fanout')
          for (const n of sizes.groups) await run(series, adapter, n, () => fanoutPoint(adapter, n, context))
        if (series === 'parked')
          for (const n of sizes.parked) await run(series, adapter, n, () => parkedPoint(adapter, n, context))
        if (series === 'backlog')
          for (const n of sizes.backlogs) await run(series, adapter, n, () => backlogPoint(adapter, n, context))
        if (series === 'stats') await run(series, adapter, sizes.statsPartitions, () => statsPoints(adapter, context))
      }
    }
    for (const adapter of adapters) {
      if (adapter instanceof PgBossAdapter) for (const error of adapter.emittedErrors()) notes.push(`pg-boss: ${error}`)
    }
    if (broker) {
      finalRssMb = (treeRssBytes(broker.pid) ?? 0) / 1024 / 1024
      for (const line of broker.logTail()) notes.push(`broker log: ${line.slice(0, 300)}`)
    }
  } finally {
    await cleanup()
  }

  const date = new Date(started).toISOString()
  const dir = await scaleResultsDir(date)
  const report: ScaleReport = {
    environment: {
      date,
      ...machineFacts(),
      gitSha: gitSha(),
      postgres: pgFacts,
      mode: options.quick ? 'scale, quick' : 'scale',
      adapters: adapters.map((a) => ({ name: a.name, label: a.label })),
      skipped,
      notes,
    },
    sizes,
    points,
    targets: scaleTargets(points, sizes),
    charts: await writeScaleCharts(dir, points),
    finalBrokerRssMb: finalRssMb,
  }
  const markdown = renderScaleMarkdown(report)
  await writeScaleReport(dir, report, markdown)
  process.stdout.write(markdown)
  log(
    `wrote ${path.relative(REPO_ROOT, dir)}/report.md, results.json and ${report.charts.length} charts in ${Math.round((Date.now() - started) / 1000)} s`,
  )
  const correctnessFailed = report.targets.some((t) => t.correctness && !t.pass) || points.length === 0
  return correctnessFailed ? 1 : 0
}
