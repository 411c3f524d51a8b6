/**
 * Samples of this process for the per-minute server rows (docs/operations.md, "Per-minute metrics in PostgreSQL") and
 * the `sizes` block: CPU share since the previous sample, memory, event-loop delay p99, pool state and parked pops.
 */
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks'
import type { SystemPoint } from '../../wire/index.js'

/** One sample: the wire point of analytics/system-metrics without who and when (src/wire/analytics.ts). */
export type SystemSample = Omit<SystemPoint, 'timestamp' | 'serverId' | 'hostname' | 'pid' | 'requests'>

/** The pool counters a sample reads (pg.Pool has them). */
export interface PoolCounts {
  readonly totalCount: number
  readonly idleCount: number
  readonly waitingCount: number
}

/** Resolution of the event-loop delay monitor, ms (prom-client's default too). */
const LOOP_MONITOR_RESOLUTION_MS = 10

/** Takes samples; the event-loop monitor runs only between {@link start} and {@link stop}. */
export class SystemSampler {
  private readonly pool: PoolCounts
  private readonly waiters: { readonly parked: number }
  private lastCpu = process.cpuUsage()
  private lastAt = process.hrtime.bigint()
  private loopDelay: IntervalHistogram | undefined

  constructor(pool: PoolCounts, waiters: { readonly parked: number }) {
    this.pool = pool
    this.waiters = waiters
  }

  /**
   * Starts measuring event-loop delay. The monitor is a native timer, so it runs only while the metrics
   * job runs: a broker that is never started (a test that only calls runOnce) leaves nothing behind.
   */
  start(): void {
    if (this.loopDelay) return
    this.loopDelay = monitorEventLoopDelay({ resolution: LOOP_MONITOR_RESOLUTION_MS })
    this.loopDelay.enable()
  }

  /** Stops the event-loop monitor. */
  stop(): void {
    this.loopDelay?.disable()
    this.loopDelay = undefined
  }

  /** Samples now; CPU and event-loop figures cover the time since the previous sample. */
  sample(): SystemSample {
    const now = process.hrtime.bigint()
    const cpu = process.cpuUsage(this.lastCpu)
    const wallMicros = Number(now - this.lastAt) / 1000
    this.lastCpu = process.cpuUsage()
    this.lastAt = now
    const memory = process.memoryUsage()
    let eventLoopLagP99Ms = 0
    if (this.loopDelay) {
      // The histogram is in nanoseconds and is reset so each sample covers its own interval.
      eventLoopLagP99Ms = this.loopDelay.count > 0 ? this.loopDelay.percentile(99) / 1e6 : 0
      this.loopDelay.reset()
    }
    const share = (micros: number) => (wallMicros > 0 ? Math.round((micros / wallMicros) * 10_000) / 100 : 0)
    return {
      cpuUserPercent: share(cpu.user),
      cpuSystemPercent: share(cpu.system),
      rssBytes: memory.rss,
      heapUsedBytes: memory.heapUsed,
      eventLoopLagP99Ms,
      poolTotal: this.pool.totalCount,
      poolIdle: this.pool.idleCount,
      poolWaiting: this.pool.waitingCount,
      parkedPops: this.waiters.parked,
    }
  }
}
