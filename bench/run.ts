/**
 * `npm run bench`: one run on one machine (docs/performance.md, "The benchmark" and "Targets"). Starts a private
 * PostgreSQL (or uses PG_HOST), our broker as a child process, the raw-SQL ceiling and pg-boss on the same database,
 * RabbitMQ when it is installed; runs every scenario on every system that can run it, interleaved; checks
 * lost/duplicated messages in every run; writes bench/results/<timestamp>/{report.md,results.json} and prints the
 * report.
 *
 *   npm run bench -- --quick                      smoke run, under 2 minutes
 *   npm run bench -- --runs 3                     everything 3 times, medians (min-max)
 *   npm run bench -- --scenarios push-100,drain --adapters ours,ceiling --window 30
 *   npm run bench -- --soak --scenarios none      only the 10-minute RSS soak
 *   npm run bench -- --scenarios drain --adapters ours --profile /tmp/prof   CPU profile of the broker
 *   npm run bench -- --scale [--quick] [--series partitions,backlog] scaling series with charts (scale.ts)
 */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { ADAPTER_NAMES, SCENARIO_IDS, type Adapter, type AdapterName, type SkippedAdapter } from './adapter.js'
import { ensureBuilt, REPO_ROOT, startBrokerProcess, type BrokerProcess } from './broker-process.js'
import { CeilingAdapter } from './ceiling.js'
import { sleep, treeRssBytes, waitForQuietMachine } from './measure.js'
import { memoryMap, type MemoryMap } from './memory-map.js'
import { startGatewayProcess } from './gateway.js'
import { OursAdapter } from './ours.js'
import { PgBossAdapter } from './pgboss.js'
import { startBenchPostgres, type BenchPostgres } from './postgres.js'
import { RabbitAdapter } from './rabbitmq.js'
import { gitSha, machineFacts, renderMarkdown, writeReport, type BenchReport } from './report.js'
import { runScenario, type RunSettings, type ScenarioResult } from './scenario-run.js'
import { scenarioSpecs, soakSpec, type ScenarioSpec } from './scenarios.js'
import { runScale } from './scale.js'
import { SERIES_IDS, type SeriesId } from './scale-series.js'
import { runSoak, type SoakOutcome } from './soak.js'
import { runCrossReplica } from './cross-replica.js'
import { freshDatabaseNote, runFreshDatabase } from './fresh-database.js'
import { aggregate, checkTargets } from './targets.js'

const USAGE = `usage: npm run bench -- [options]
  --quick              smoke run: 1 run, 1 s warm-up + 5 s windows, reduced sizes (< 2 minutes)
  --runs N             run everything N times and report medians (min-max) (default 1)
  --scenarios LIST     comma-separated: ${SCENARIO_IDS.join(', ')}, or none (default all)
  --adapters LIST      comma-separated: ${ADAPTER_NAMES.join(', ')} (default all; rabbitmq only if installed,
                       and with --quick only when named here)
  --window SECONDS     measurement window of windowed scenarios (default 15, quick 5)
  --warmup SECONDS     warm-up before each window (default 3, quick 1)
  --soak               also run the broker RSS soak (ours only)
  --soak-minutes N     soak length (default 10)
  --cross-replica      also time a push on replica A waking a long-poll on B: mesh vs PostgreSQL only
  --cross-replica-n N  wakes per mode (default 200, quick 50)
  --fresh-db           also run push-1 and push-100 on a new database, never analyzed, for --fresh-db-seconds
                       (default 10), then again after ANALYZE, each with a broker of its own
  --fresh-db-seconds N seconds per window of --fresh-db
  --memory-map         read where the broker's memory is (node binary, V8 heap, malloc, ...) at idle and at
                       each scenario's peak (bench/memory-map.ts)
  --profile DIR        run the broker under node --cpu-prof; its .cpuprofile lands in DIR when the run ends
  --no-build           do not rebuild dist/ even when it is older than src/
  --strict             exit 1 when a speed target fails too (correctness failures always exit 1)
  --scale              the scaling series instead (partitions, backlog, fan-out groups, parked long-polls,
                       stats refresh) with SVG charts; with --quick, smaller sizes (6-8 minutes on a busy 2-core VM)
  --series LIST        with --scale: comma-separated ${SERIES_IDS.join(', ')} (default all)`

interface Options {
  quick: boolean
  runs: number
  scenarios: ScenarioSpec[]
  adapters: AdapterName[]
  /** Adapters left out by default, with the reason the report gives. */
  leftOut: SkippedAdapter[]
  windowMs: number
  warmupMs: number
  soakMinutes?: number
  /** Wakes per mode of the cross-replica run; undefined = not run. */
  crossReplica?: number
  /** Seconds per window of the fresh-database run; undefined = not run. */
  freshDbSeconds?: number
  /** `--memory-map`: the broker's memory by kind at idle and at each scenario's peak. */
  memoryMap: boolean
  build: boolean
  strict: boolean
  profileDir?: string
  /** `--scale`: the series to run (scale.ts) instead of the scenarios. */
  scale?: SeriesId[]
  /** Adapters named by `--adapters`, or undefined for the default set. */
  namedAdapters?: AdapterName[]
}

function list<T extends string>(value: string | undefined, allowed: readonly T[], what: string): T[] {
  if (value === undefined) return [...allowed]
  if (value === 'none') return []
  const items = value.split(',').map((item) => item.trim())
  for (const item of items) {
    if (!(allowed as readonly string[]).includes(item)) throw new Error(`unknown ${what} "${item}"\n${USAGE}`)
  }
  return items as T[]
}

function positive(value: string | undefined, fallback: number, what: string): number {
  if (value === undefined) return fallback
  const parsed = Number(value)
  if (!Number.isFinite(parsed) || parsed <= 0) throw new Error(`${what} must be a positive number\n${USAGE}`)
  return parsed
}

function parseOptions(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: 'boolean', default: false },
      runs: { type: 'string' },
      scenarios: { type: 'string' },
      adapters: { type: 'string' },
      window: { type: 'string' },
      warmup: { type: 'string' },
      soak: { type: 'boolean', default: false },
      'soak-minutes': { type: 'string' },
      'cross-replica': { type: 'boolean', default: false },
      'cross-replica-n': { type: 'string' },
      'fresh-db': { type: 'boolean', default: false },
      'fresh-db-seconds': { type: 'string' },
      'memory-map': { type: 'boolean', default: false },
      'no-build': { type: 'boolean', default: false },
      profile: { type: 'string' },
      strict: { type: 'boolean', default: false },
      scale: { type: 'boolean', default: false },
      series: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  })
  if (values.help) {
    process.stdout.write(`${USAGE}\n`)
    process.exit(0)
  }
  const quick = values.quick
  const ids = list(values.scenarios, SCENARIO_IDS, 'scenario')
  // RabbitMQ's node start and its five scenarios took the smoke run from about 90 to 137 s (2026-12-01), past
  // the 2 minutes --quick promises: there it runs only when named.
  const quickDefault = quick && values.adapters === undefined
  const leftOut: SkippedAdapter[] = quickDefault
    ? [{ name: 'rabbitmq', reason: 'not in --quick unless named in --adapters; it takes the run past 2 minutes' }]
    : []
  return {
    quick,
    runs: Math.floor(positive(values.runs, 1, '--runs')),
    scenarios: scenarioSpecs(quick).filter((spec) => (ids as string[]).includes(spec.id)),
    adapters: list(values.adapters, ADAPTER_NAMES, 'adapter').filter((name) => !leftOut.some((l) => l.name === name)),
    leftOut,
    windowMs: positive(values.window, quick ? 5 : 15, '--window') * 1000,
    warmupMs: positive(values.warmup, quick ? 1 : 3, '--warmup') * 1000,
    soakMinutes: values.soak ? positive(values['soak-minutes'], 10, '--soak-minutes') : undefined,
    crossReplica: values['cross-replica']
      ? Math.floor(positive(values['cross-replica-n'], quick ? 50 : 200, '--cross-replica-n'))
      : undefined,
    freshDbSeconds: values['fresh-db']
      ? Math.floor(positive(values['fresh-db-seconds'], 10, '--fresh-db-seconds'))
      : undefined,
    memoryMap: values['memory-map'],
    build: !values['no-build'],
    strict: values.strict,
    profileDir: values.profile === undefined ? undefined : path.resolve(values.profile),
    scale: values.scale ? list(values.series, SERIES_IDS, 'series') : undefined,
    namedAdapters: values.adapters === undefined ? undefined : list(values.adapters, ADAPTER_NAMES, 'adapter'),
  }
}

const log = (line: string) => process.stderr.write(`[bench] ${line}\n`)

/** The broker's memory by kind at idle: after PostgreSQL settles and 10 s without requests. */
async function idleBrokerMemory(pid: number, pg: BenchPostgres): Promise<MemoryMap | undefined> {
  await pg.settle()
  await sleep(10_000)
  return memoryMap(pid)
}

function ourVersion(): string {
  const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version?: string }
  return pkg.version ?? '?'
}

function summary(result: ScenarioResult): string {
  const f = (v: number | undefined, d = 1) => (v === undefined ? 'n/a' : v.toFixed(d))
  return [
    `${Math.round(result.rate ?? 0).toLocaleString('en-US')} ${result.rateUnit}`,
    `req p50/p99 ${f(result.requestP50Ms)}/${f(result.requestP99Ms)} ms`,
    result.e2eP50Ms === undefined ? '' : `e2e p50/p99 ${f(result.e2eP50Ms)}/${f(result.e2eP99Ms)} ms`,
    result.brokerRssMb === undefined ? '' : `rss ${f(result.brokerRssMb)} MB`,
    result.cliRssMb === undefined ? '' : `queenctl rss ${f(result.cliRssMb)} MB`,
    `lost ${result.lost} dup ${result.duplicates}${result.errors ? ` errors ${result.errors}` : ''}`,
  ]
    .filter(Boolean)
    .join(', ')
}

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2))
  if (options.scale) {
    return runScale(
      {
        quick: options.quick,
        series: options.scale,
        // RabbitMQ has no partitions and no backlog seeding here: the scaling series leave it out.
        adapters: (options.namedAdapters ?? ['ours', 'ceiling', 'pg-boss']).filter((name) => name !== 'rabbitmq'),
        build: options.build,
        label: `queenctl ${ourVersion()}`,
      },
      log,
    )
  }
  const started = Date.now()
  const cleanups: (() => Promise<void>)[] = []
  const cleanup = async () => {
    for (const stop of cleanups.splice(0).reverse())
      await stop().catch((error: unknown) => log(`cleanup: ${String(error)}`))
  }
  const onSignal = () => {
    log('interrupted: stopping everything this run started')
    void cleanup().finally(() => process.exit(130))
  }
  process.once('SIGINT', onSignal)
  process.once('SIGTERM', onSignal)

  const skipped: SkippedAdapter[] = [...options.leftOut]
  const notes: string[] = []
  const results: ScenarioResult[] = []
  let broker: BrokerProcess | undefined
  let pg: BenchPostgres | undefined
  let pgFacts: BenchReport['environment']['postgres'] = { version: 'not started', origin: '', settings: {} }
  let soak: SoakOutcome | undefined
  let idleMemory: MemoryMap | undefined
  let finalRssMb: number | undefined
  const adapters: Adapter[] = []
  try {
    // The gateway runs in front of our broker, so it needs the broker too.
    const wantsOurs = options.adapters.includes('ours') || options.adapters.includes('gateway')
    if (wantsOurs && options.build) await ensureBuilt(log)
    pg = await startBenchPostgres(log)
    cleanups.push(() => (pg ? pg.stop() : Promise.resolve()))
    pgFacts = { version: pg.version, origin: pg.origin, settings: pg.settings }
    log(`PostgreSQL ${pg.version}: ${pg.origin}`)
    if (pg.postmasterPid === undefined) notes.push('PostgreSQL CPU not measured: its postmaster is not visible here')

    if (wantsOurs) {
      const started = await startBrokerProcess(pg, { profileDir: options.profileDir })
      broker = started
      cleanups.push(() => started.stop())
      if (options.adapters.includes('ours')) {
        adapters.push(new OursAdapter(started, `queenctl ${ourVersion()} (node bin/run.js serve, pid ${started.pid})`))
      }
      log(`broker pid ${started.pid} on ${started.url}`)
    }
    if (broker && options.adapters.includes('gateway')) {
      const gateway = await startGatewayProcess(pg, broker)
      cleanups.push(() => gateway.stop())
      adapters.push(
        new OursAdapter(broker, `queenctl proxy serve (pid ${gateway.pid}) in front of the same broker`, undefined, {
          name: 'gateway',
          url: gateway.url,
          headers: gateway.headers,
        }),
      )
      log(`gateway pid ${gateway.pid} on ${gateway.url}`)
    }
    if (options.adapters.includes('ceiling')) adapters.push(await CeilingAdapter.start(pg.connection))
    if (options.adapters.includes('pg-boss')) adapters.push(await PgBossAdapter.start(pg.connection))
    if (options.adapters.includes('rabbitmq')) {
      const rabbit = await RabbitAdapter.start(log)
      if (rabbit instanceof RabbitAdapter) adapters.push(rabbit)
      else skipped.push({ name: 'rabbitmq', reason: rabbit.skipped })
    }
    for (const adapter of adapters) cleanups.push(() => adapter.stop())
    for (const s of skipped) log(`skipping ${s.name}: ${s.reason}`)

    const settings: RunSettings = {
      warmupMs: options.warmupMs,
      windowMs: options.windowMs,
      // How long consumers may take to receive everything once producing stopped (a drain: the whole run).
      // Whatever is not received by then counts as lost, so this must cover the slowest system: pg-boss
      // drained 100 000 messages at 1,663 msg/s (60 s) on a slow day.
      drainTimeoutMs: options.quick ? 30_000 : 180_000,
      postmasterPid: pg.postmasterPid,
      memoryMap: options.memoryMap,
    }
    if (options.memoryMap && broker) idleMemory = await idleBrokerMemory(broker.pid, pg)
    for (let run = 1; run <= options.runs; run++) {
      for (const spec of options.scenarios) {
        for (const adapter of adapters.filter((a) => a.supports(spec.id))) {
          if (adapter.name === 'ours' && broker && !broker.alive()) {
            notes.push(`${spec.id} on ours, run ${run}, skipped: the broker process has exited`)
            continue
          }
          const watched = { brokerPid: adapter.brokerPid(), postmasterPid: pg.postmasterPid }
          if (!options.quick) {
            const other = await waitForQuietMachine(watched, { maxCores: 0.3, timeoutMs: 10_000 })
            if (other !== undefined && other >= 0.3) log(`machine still busy (${other.toFixed(2)} cores of other load)`)
          }
          const waited = await pg.settle()
          if (waited >= 1000) log(`settled PostgreSQL (vacuum, analyze, checkpoint) in ${(waited / 1000).toFixed(1)} s`)
          log(`run ${run}/${options.runs}: ${spec.id} on ${adapter.name}`)
          try {
            const result = await runScenario(adapter, spec, run, settings)
            results.push(result)
            log(`  ${summary(result)}`)
          } catch (error) {
            log(`  failed: ${String(error)}`)
            notes.push(`${spec.id} on ${adapter.name}, run ${run}, did not complete: ${String(error)}`)
          }
        }
      }
    }
    if (options.soakMinutes !== undefined) {
      const ours = adapters.find((a) => a.name === 'ours')
      if (ours) {
        soak = await runSoak(ours, options.soakMinutes, settings, log)
        if (soak.result) results.push(soak.result)
      } else {
        notes.push('--soak needs the ours adapter')
      }
    }
    if (options.crossReplica !== undefined) {
      if (options.build && !options.adapters.includes('ours')) await ensureBuilt(log)
      for (const mode of await runCrossReplica(pg, options.crossReplica, log)) {
        notes.push(
          `cross-replica (${mode.mode}): push on A to long-poll answered on B, ${mode.samples} wakes: p50 ${mode.p50} ms, ` +
            `p95 ${mode.p95} ms, p99 ${mode.p99} ms, max ${mode.max} ms; after the push's own answer p50 ` +
            `${mode.afterPushP50} ms, p99 ${mode.afterPushP99} ms; missed ${mode.missed}`,
        )
      }
    }
    if (options.freshDbSeconds !== undefined) {
      if (options.build && !options.adapters.includes('ours')) await ensureBuilt(log)
      for (const result of await runFreshDatabase(pg, options.freshDbSeconds, log))
        notes.push(freshDatabaseNote(result))
    }
    for (const adapter of adapters) {
      if (adapter instanceof PgBossAdapter) for (const error of adapter.emittedErrors()) notes.push(`pg-boss: ${error}`)
    }
    if (broker) finalRssMb = (treeRssBytes(broker.pid) ?? 0) / 1024 / 1024
    if (broker) for (const line of broker.logTail()) notes.push(`broker log: ${line.slice(0, 300)}`)
  } finally {
    await cleanup()
  }

  const aggregates = aggregate(results)
  const report: BenchReport = {
    environment: {
      date: new Date(started).toISOString(),
      ...machineFacts(),
      gitSha: gitSha(),
      postgres: pgFacts,
      mode: options.quick ? 'quick' : 'full',
      runs: options.runs,
      warmupSeconds: options.warmupMs / 1000,
      windowSeconds: options.windowMs / 1000,
      adapters: adapters.map((a) => ({ name: a.name, label: a.label })),
      skipped,
      notes,
    },
    scenarios: soak ? [...options.scenarios, soakSpec()] : options.scenarios,
    results,
    aggregates,
    targets: checkTargets(results, aggregates, { finalRssMb, soak: soak?.check }),
    soak: soak ? { samples: soak.samples, result: soak.result } : undefined,
    finalBrokerRssMb: finalRssMb,
    idleBrokerMemory: idleMemory,
  }
  const markdown = renderMarkdown(report)
  const dir = await writeReport(report, markdown)
  process.stdout.write(markdown)
  log(
    `wrote ${path.relative(REPO_ROOT, dir)}/report.md and results.json in ${Math.round((Date.now() - started) / 1000)} s`,
  )
  const correctnessFailed = report.targets.some((t) => t.correctness && !t.pass) || results.length === 0
  const speedFailed = report.targets.some((t) => !t.correctness && !t.pass)
  return correctnessFailed || (options.strict && speedFailed) ? 1 : 0
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    log(error instanceof Error ? (error.stack ?? error.message) : String(error))
    process.exit(1)
  },
)
