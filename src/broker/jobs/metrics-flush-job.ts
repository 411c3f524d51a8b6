/**
 * The per-minute metrics writer (docs/operations.md, "Per-minute metrics in PostgreSQL"): every
 * METRICS_AGGREGATE_INTERVAL_S this replica writes its in-memory per-minute counters (one row per minute and queue) and
 * a process sample (one row per minute) to PostgreSQL. Each replica writes only rows of its own server id, so it takes
 * no lock. A failed write gives the counters back, to be written by the next cycle.
 */
import { hostname } from 'node:os'
import type pg from 'pg'
import type { Logger } from 'pino'
import { inTransaction } from '../../platform/postgres/pool.js'
import { runQuery } from '../db/run-query.js'
import type { MetricsCollector } from '../observe/metrics-collector.js'
import type { SystemSampler } from '../observe/system-sampler.js'
import { minuteOf } from '../observe/time-buckets.js'
import { BackgroundLoop, type BackgroundJob } from '../../platform/jobs/background-loop.js'

/** What the writer needs. */
export interface MetricsFlushDeps {
  pool: pg.Pool
  collector: MetricsCollector
  sampler: SystemSampler
  serverId: string
}

/** Rows one flush wrote. */
export interface MetricsFlushResult {
  queueRows: number
  serverRows: number
}

const iso = (epochMs: number) => new Date(epochMs).toISOString()

/** Writes what was counted since the previous flush, in one transaction. */
export async function flushMetrics(deps: MetricsFlushDeps): Promise<MetricsFlushResult> {
  const batch = deps.collector.minutes.drain()
  const sample = deps.sampler.sample()
  // The current minute always gets a row, so an idle replica still shows up with its process sample.
  const requests = new Map(batch.requests)
  const currentMinute = minuteOf(Date.now())
  if (!requests.has(currentMinute)) requests.set(currentMinute, 0)
  const queues = batch.queues
  try {
    await inTransaction(deps.pool, async (client) => {
      if (queues.length > 0) {
        await runQuery(client, 'metricsQueueWrite', [
          deps.serverId,
          queues.map((row) => iso(row.minute)),
          queues.map((row) => row.tenant),
          queues.map((row) => row.queue),
          queues.map((row) => row.push),
          queues.map((row) => row.pop),
          queues.map((row) => row.ack),
          queues.map((row) => row.failed),
          queues.map((row) => row.dlq),
          queues.map((row) => (row.pop > 0 ? row.lagSumMs / row.pop : 0)),
          queues.map((row) => Math.round(row.lagMaxMs)),
          // Per-queue parked pops: the pop waiters do not count them per queue yet; the server row has the total.
          queues.map(() => 0),
        ])
      }
      await runQuery(client, 'metricsServerWrite', [
        deps.serverId,
        hostname(),
        process.pid,
        [...requests.keys()].map(iso),
        [...requests.values()],
        sample.cpuUserPercent,
        sample.cpuSystemPercent,
        sample.rssBytes,
        sample.heapUsedBytes,
        sample.eventLoopLagP99Ms,
        sample.poolTotal,
        sample.poolIdle,
        sample.poolWaiting,
        sample.parkedPops,
      ])
    })
  } catch (error) {
    deps.collector.minutes.restore(batch)
    throw error
  }
  return { queueRows: queues.length, serverRows: requests.size }
}

/** The metrics loop; it also runs the event-loop delay monitor while started. */
export class MetricsFlushJob implements BackgroundJob {
  readonly name = 'metrics'
  private readonly loop: BackgroundLoop
  private readonly deps: MetricsFlushDeps

  constructor(deps: MetricsFlushDeps, intervalSeconds: number, log: Logger) {
    this.deps = deps
    this.loop = new BackgroundLoop(
      this.name,
      intervalSeconds * 1000,
      async () => {
        await flushMetrics(deps)
      },
      log,
    )
  }

  start(): void {
    this.deps.sampler.start()
    this.loop.start()
  }

  async stop(): Promise<void> {
    await this.loop.stop()
    this.deps.sampler.stop()
  }

  runOnce(): Promise<void> {
    return this.loop.runOnce()
  }
}
