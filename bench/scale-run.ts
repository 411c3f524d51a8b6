/**
 * The measurements of `--scale` (issue 22), one function per series; each returns one point per size and
 * system. Drain and fan-out points are ordinary scenarios (scenario-run.ts, with its ledger); the backlog,
 * parked long-poll and stats refresh points are driven here.
 */
import { randomBytes } from 'node:crypto'
import { setMaxListeners } from 'node:events'
import { makeMessage, type Adapter, type AdapterName, type BenchQueue, type Delivery } from './adapter.js'
import { HttpClient } from './load.js'
import { cpuBetween, cpuSnapshot, Latencies, sleep, treeRssBytes, type CpuUsage } from './measure.js'
import { rssSampler, runScenario, type ScenarioResult } from './scenario-run.js'
import { drainSpec, fanoutSpec, partitionsPerPop, type ScaleSizes, type SeriesId } from './scale-series.js'

/** One point of one series on one system. */
export interface ScalePoint {
  series: SeriesId
  adapter: AdapterName
  /** The size the series varies: partitions, backlog, groups, parked polls, changed partitions. */
  x: number
  /** The figures of the point, by name (see each series for the names). */
  values: Record<string, number | undefined>
  /** CPU over the measured part (for backlog, the push window). */
  cpu?: Pick<CpuUsage, 'busyCores' | 'otherCores' | 'stealCores'>
  /** The broker's highest RSS while the point ran (seeding included), MB; ours only. */
  peakRssMb?: number
  lost: number
  duplicates: number
  errors: string[]
}

/** What every series needs from the run. */
export interface ScaleContext {
  sizes: ScaleSizes
  postmasterPid?: number
  /** Vacuum, analyze and checkpoint before a measurement (postgres.ts). */
  settle(): Promise<number>
  log(line: string): void
}

function errorsOf(result: ScenarioResult): string[] {
  return result.errors > 0 || result.lost > 0 || result.duplicates > 0
    ? [...result.errorSample, ...result.lostSample]
    : []
}

function cpuOf(result: ScenarioResult): ScalePoint['cpu'] {
  return { busyCores: result.busyCores, otherCores: result.otherCores, stealCores: result.stealCores }
}

function settings(context: ScaleContext) {
  return {
    warmupMs: context.sizes.warmupMs,
    windowMs: context.sizes.windowMs,
    drainTimeoutMs: context.sizes.drainTimeoutMs,
    postmasterPid: context.postmasterPid,
  }
}

/** Drain rate and pop round trip at each partition count: values rate, popP50Ms, popP99Ms, cpuUsPerMessage. */
export async function partitionsPoint(
  adapter: Adapter,
  partitions: number,
  context: ScaleContext,
): Promise<ScalePoint> {
  await context.settle()
  const result = await runScenario(adapter, drainSpec(partitions, context.sizes.drainMessages), 1, settings(context))
  return {
    series: 'partitions',
    adapter: adapter.name,
    x: partitions,
    values: {
      rate: result.rate,
      partitionsPerPop: partitionsPerPop(partitions, context.sizes.drainMessages),
      popP50Ms: result.requestP50Ms,
      popP99Ms: result.requestP99Ms,
      brokerCpuPer100k: result.brokerCpuPer100k,
      pgCpuPer100k: result.pgCpuPer100k,
    },
    cpu: cpuOf(result),
    peakRssMb: result.brokerRssMaxMb,
    lost: result.lost,
    duplicates: result.duplicates,
    errors: errorsOf(result),
  }
}

/**
 * Fan-out to `groups` groups: values total (deliveries/s over all groups), perGroup, and cpuUsPerDelivery
 * (broker + PostgreSQL + load generator CPU per delivery, µs), the CPU the groups need.
 */
export async function fanoutPoint(adapter: Adapter, groups: number, context: ScaleContext): Promise<ScalePoint> {
  await context.settle()
  const result = await runScenario(adapter, fanoutSpec(groups, context.sizes.fanoutMessages), 1, settings(context))
  const cpuPer100k = (result.brokerCpuPer100k ?? 0) + (result.pgCpuPer100k ?? 0) + (result.benchCpuPer100k ?? 0)
  return {
    series: 'fanout',
    adapter: adapter.name,
    x: groups,
    values: {
      total: result.rate,
      perGroup: result.rate === undefined ? undefined : result.rate / groups,
      // per100k is per pushed message; a pushed message is `groups` deliveries.
      cpuUsPerDelivery: (cpuPer100k * 10) / groups,
    },
    cpu: cpuOf(result),
    peakRssMb: result.brokerRssMaxMb,
    lost: result.lost,
    duplicates: result.duplicates,
    errors: errorsOf(result),
  }
}

const BACKLOG_PARTITIONS = 16
const BACKLOG_PRODUCERS = 8
const BACKLOG_CONSUMERS = 8

/**
 * Push and pop with `backlog` messages already stored (seeded by SQL, seed.ts): a closed-loop push window
 * (8 producers, 100 per push, 16 partitions), then 8 consumers pop 100 + ack until they have timed
 * `backlogPopMessages` (or `backlogPopMaxMs` passed). The pops take the oldest messages, the backlog's.
 * Values: pushRate, pushP50Ms, pushP99Ms, popRate, popP50Ms, popP99Ms, seedSeconds.
 */
export async function backlogPoint(adapter: Adapter, backlog: number, context: ScaleContext): Promise<ScalePoint> {
  const { sizes } = context
  const tag = `s_backlog_${adapter.name}_${backlog}_${randomBytes(3).toString('hex')}`
  const queue = await adapter.openQueue({ name: tag, partitions: BACKLOG_PARTITIONS, groups: [] })
  const watched = { brokerPid: adapter.brokerPid(), postmasterPid: context.postmasterPid }
  const stopRss = rssSampler(watched.brokerPid)
  const errors: string[] = []
  const error = (where: string, e: unknown) => {
    if (errors.length < 5) errors.push(`${where}: ${String(e)}`.slice(0, 300))
  }
  try {
    const seedStarted = performance.now()
    if (backlog > 0) {
      if (!queue.seedBacklog) throw new Error(`${adapter.name} cannot be seeded`)
      context.log(`  seeding ${backlog.toLocaleString('en-US')} messages`)
      await queue.seedBacklog(0, backlog)
    }
    const seedSeconds = (performance.now() - seedStarted) / 1000
    await context.settle()

    // Push window.
    const pushLatency = new Latencies()
    const windowStart = performance.now() + sizes.warmupMs
    const windowEnd = windowStart + sizes.windowMs
    let pushedInWindow = 0
    let pushed = 0
    let start = cpuSnapshot(watched)
    const startTimer = sleep(sizes.warmupMs).then(() => (start = cpuSnapshot(watched)))
    await Promise.all(
      Array.from({ length: BACKLOG_PRODUCERS }, async (_, producer) => {
        for (let request = 0; performance.now() < windowEnd; request++) {
          const messages = Array.from({ length: 100 }, (_, i) =>
            makeMessage(
              tag,
              producer,
              request * 100 + i,
              (request * BACKLOG_PRODUCERS + producer) % BACKLOG_PARTITIONS,
            ),
          )
          const began = performance.now()
          try {
            const accepted = (await queue.push(messages)).filter(Boolean).length
            const ended = performance.now()
            pushed += accepted
            if (began >= windowStart && ended <= windowEnd) pushLatency.add(ended - began)
            if (ended >= windowStart && ended <= windowEnd) pushedInWindow += accepted
          } catch (e) {
            error('push', e)
          }
        }
      }),
    )
    await startTimer
    const pushCpu = cpuBetween(start, cpuSnapshot(watched))
    const [pushP50Ms, pushP99Ms] = pushLatency.percentiles(50, 99)

    // Pop phase: a fixed number of messages (or the time limit), timed from the first pop.
    const target = Math.min(sizes.backlogPopMessages, backlog + pushed)
    const pop = await timedPops(queue, target, sizes.backlogPopMaxMs, error)
    return {
      series: 'backlog',
      adapter: adapter.name,
      x: backlog,
      values: {
        pushRate: pushedInWindow / (sizes.windowMs / 1000),
        pushP50Ms,
        pushP99Ms,
        popRate: pop.rate,
        popP50Ms: pop.p50,
        popP99Ms: pop.p99,
        seedSeconds,
      },
      cpu: { busyCores: pushCpu.busyCores, otherCores: pushCpu.otherCores, stealCores: pushCpu.stealCores },
      peakRssMb: mb(stopRss().max),
      lost: 0,
      duplicates: pop.duplicates,
      errors,
    }
  } finally {
    stopRss()
    await queue.close().catch(() => undefined)
  }
}

function mb(bytes: number | undefined): number | undefined {
  return bytes === undefined ? undefined : bytes / 1024 / 1024
}

/** Pops (8 consumers, 100 + ack) until `target` messages arrived or `maxMs` passed; duplicates by id. */
async function timedPops(
  queue: BenchQueue,
  target: number,
  maxMs: number,
  error: (where: string, e: unknown) => void,
): Promise<{ rate?: number; p50?: number; p99?: number; duplicates: number }> {
  const seen = new Set<string>()
  let duplicates = 0
  const latency = new Latencies()
  const stop = new AbortController()
  const started = performance.now()
  const timer = setTimeout(() => stop.abort(), maxMs)
  await Promise.all(
    Array.from({ length: BACKLOG_CONSUMERS }, async (_, index) => {
      const consumer = queue.consumer({
        group: undefined,
        index,
        count: BACKLOG_CONSUMERS,
        batch: 100,
        partitionsPerPop: 1,
        waitMs: 1000,
      })
      while (!stop.signal.aborted) {
        const began = performance.now()
        let deliveries: Delivery[]
        try {
          deliveries = await consumer.next(stop.signal)
        } catch (e) {
          error('pop', e)
          await sleep(20, stop.signal)
          continue
        }
        if (deliveries.length === 0) continue
        latency.add(performance.now() - began)
        for (const d of deliveries) {
          const key = `${d.producer}.${d.seq}`
          if (seen.has(key)) duplicates++
          else seen.add(key)
        }
        if (seen.size >= target) stop.abort()
        try {
          const failed = await consumer.ack(deliveries)
          if (failed > 0) error('ack', `${failed} of ${deliveries.length} acks failed`)
        } catch (e) {
          error('ack', e)
        }
      }
      await consumer.close()
    }),
  )
  clearTimeout(timer)
  const seconds = (performance.now() - started) / 1000
  const [p50, p99] = latency.percentiles(50, 99)
  return { rate: seconds > 0 ? seen.size / seconds : undefined, p50, p99, duplicates }
}

/**
 * `count` long-poll pops parked on an empty queue of our broker (one connection each): values parked
 * (still waiting when measured), rssMb (the broker's peak), brokerCores and pgCores (average CPU over the
 * window while they wait), early (answered before the window ended: refused or timed out).
 */
export async function parkedPoint(adapter: Adapter, count: number, context: ScaleContext): Promise<ScalePoint> {
  const url = adapter.serverUrl?.()
  if (url === undefined) throw new Error('parked long-polls need our broker')
  const tag = `s_parked_${count}_${randomBytes(3).toString('hex')}`
  const queue = await adapter.openQueue({ name: tag, partitions: 1, groups: [] })
  // The queue exists once it has had a message; drain it so every pop parks.
  await queue.push([makeMessage(tag, 0, 0, 0)])
  const first = queue.consumer({ group: undefined, index: 0, count: 1, batch: 10, partitionsPerPop: 1, waitMs: 200 })
  const leftover = await first.next()
  if (leftover.length > 0) await first.ack(leftover)
  await context.settle()

  const watched = { brokerPid: adapter.brokerPid(), postmasterPid: context.postmasterPid }
  const client = new HttpClient(url, Math.max(1, count))
  const stop = new AbortController()
  // Every parked request listens on this one signal.
  setMaxListeners(0, stop.signal)
  const errors: string[] = []
  let early = 0
  const path = `/api/v1/pop/queue/${encodeURIComponent(tag)}?batch=1&wait=true&timeout=120000`
  // The broker's RSS before the first poll opens: what each parked poll costs is measured above it (issue 39).
  const before = watched.brokerPid === undefined ? undefined : treeRssBytes(watched.brokerPid)
  const stopRss = rssSampler(watched.brokerPid)
  const polls = Array.from({ length: count }, () =>
    client.request('GET', path, undefined, { timeoutMs: 180_000, signal: stop.signal }).then(
      (answer) => {
        early++
        if (errors.length < 5)
          errors.push(`pop answered early: HTTP ${answer.status} ${JSON.stringify(answer.body).slice(0, 150)}`)
      },
      (e: unknown) => {
        if (!stop.signal.aborted) {
          early++
          if (errors.length < 5) errors.push(`pop: ${String(e)}`.slice(0, 200))
        }
      },
    ),
  )
  try {
    // Connections open and the broker registers its waiters: a second per thousand, at least 2 s.
    await sleep(Math.max(2000, count))
    const start = cpuSnapshot(watched)
    await sleep(context.sizes.windowMs)
    const cpu = cpuBetween(start, cpuSnapshot(watched))
    const rss = stopRss()
    return {
      series: 'parked',
      adapter: adapter.name,
      x: count,
      values: {
        parked: count - early,
        rssMb: mb(rss.max),
        rssBeforeMb: mb(before),
        kbPerPoll:
          before === undefined || rss.max === undefined || count === 0 ? undefined : (rss.max - before) / 1024 / count,
        brokerCores: cpu.broker === undefined ? undefined : cpu.broker / cpu.seconds,
        pgCores: cpu.pg === undefined ? undefined : cpu.pg / cpu.seconds,
        early,
      },
      cpu: { busyCores: cpu.busyCores, otherCores: cpu.otherCores, stealCores: cpu.stealCores },
      peakRssMb: mb(rss.max),
      lost: 0,
      duplicates: 0,
      errors,
    }
  } finally {
    stopRss()
    stop.abort()
    await Promise.all(polls)
    await client.close().catch(() => undefined)
    await queue.close()
  }
}

interface RefreshAnswer {
  partition?: number
  skipped?: boolean
}

/** One POST /api/v1/stats/refresh: its round trip and the partition rows it recomputed. */
async function refresh(client: HttpClient): Promise<{ ms: number; partitions?: number }> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const began = performance.now()
    const answer = await client.request('POST', '/api/v1/stats/refresh', undefined, { timeoutMs: 600_000 })
    const ms = performance.now() - began
    if (answer.status !== 200) throw new Error(`stats refresh: HTTP ${answer.status} ${JSON.stringify(answer.body)}`)
    const body = answer.body as RefreshAnswer
    if (!body.skipped) return { ms, partitions: body.partition }
    await sleep(250)
  }
  throw new Error('stats refresh: skipped 20 times (another instance kept the stats lock)')
}

/**
 * The stats refresh of our broker over `statsPartitions` partitions of one message each: first with every
 * partition new, then with none, 1 % and 10 % of them changed (one more message each). One point per
 * refresh, x = partitions changed; values refreshMs, refreshedPartitions (rows the broker recomputed).
 */
export async function statsPoints(adapter: Adapter, context: ScaleContext): Promise<ScalePoint[]> {
  const url = adapter.serverUrl?.()
  if (url === undefined) throw new Error('stats refresh needs our broker')
  const partitions = context.sizes.statsPartitions
  const tag = `s_stats_${partitions}_${randomBytes(3).toString('hex')}`
  const queue = await adapter.openQueue({ name: tag, partitions, groups: [] })
  if (!queue.seedBacklog) throw new Error(`${adapter.name} cannot be seeded`)
  const client = new HttpClient(url, 2)
  const watched = { brokerPid: adapter.brokerPid(), postmasterPid: context.postmasterPid }
  const points: ScalePoint[] = []
  try {
    // Absorbs whatever the earlier series changed, so each measured refresh sees only this queue's changes.
    await refresh(client)
    context.log(`  seeding ${partitions.toLocaleString('en-US')} partitions`)
    await queue.seedBacklog(0, partitions)
    let next = partitions
    for (const changed of [partitions, 0, Math.round(partitions / 100), Math.round(partitions / 10)]) {
      if (changed > 0 && changed < partitions) {
        // Messages next..next+changed-1 land in partitions (next % partitions)...: `changed` distinct ones.
        await queue.seedBacklog(next, changed)
        next += changed
      }
      await context.settle()
      const stopRss = rssSampler(watched.brokerPid)
      const start = cpuSnapshot(watched)
      const result = await refresh(client)
      const cpu = cpuBetween(start, cpuSnapshot(watched))
      points.push({
        series: 'stats',
        adapter: adapter.name,
        x: changed,
        values: { refreshMs: result.ms, refreshedPartitions: result.partitions },
        cpu: { busyCores: cpu.busyCores, otherCores: cpu.otherCores, stealCores: cpu.stealCores },
        peakRssMb: mb(stopRss().max),
        lost: 0,
        duplicates: 0,
        errors: [],
      })
      context.log(
        `  refresh with ${changed} changed: ${result.ms.toFixed(0)} ms, ${result.partitions ?? '?'} partition rows`,
      )
    }
  } finally {
    await client.close()
    await queue.close()
  }
  return points
}
