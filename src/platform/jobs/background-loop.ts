/**
 * The one shape of every background job (docs/conventions.md, "Background jobs"): `runOnce()` on an interval
 * with ±10 % jitter; an error is logged and the loop continues; `stop()` waits for the running cycle. A loop made with
 * `durationFactor` also waits that many times its last cycle's duration when that is longer than the interval, so a
 * cycle whose cost grows with the data never runs back to back with the next one.
 *
 * `stop()` aborts the signal the running cycle was given: work that is one long statement (the stats
 * refresh) cuts it there rather than hold a shutdown for as long as the data makes it run; batched work ends
 * after its current batch and may ignore the signal.
 */
import { EventEmitter } from 'node:events'
import type { Logger } from 'pino'
import { classifyPgError } from '../postgres/pg-errors.js'

/** A background job. */
export interface BackgroundJob {
  readonly name: string
  start(): void
  stop(): Promise<void>
  runOnce(): Promise<void>
}

/**
 * Announces the end of every cycle (`cycle`, with the job name) so tests wait on events rather than
 * sleeps; nothing listens in production.
 */
export const cycleEvents = new EventEmitter()

/** Pacing of a {@link BackgroundLoop}. */
export interface BackgroundLoopOptions {
  /** The pause after a cycle is at least this many times the cycle's duration (none by default). */
  durationFactor?: number
}

/** Runs `work` every `intervalMs` (with jitter) until stopped. */
export class BackgroundLoop implements BackgroundJob {
  readonly name: string
  private readonly intervalMs: number
  private readonly work: (signal: AbortSignal) => Promise<void>
  private readonly log: Logger
  private readonly durationFactor: number
  private timer: NodeJS.Timeout | undefined
  private running: Promise<void> | undefined
  private stopped = true
  private lastDurationMs = 0
  private abort = new AbortController()

  constructor(
    name: string,
    intervalMs: number,
    work: (signal: AbortSignal) => Promise<void>,
    log: Logger,
    options: BackgroundLoopOptions = {},
  ) {
    if (!Number.isFinite(intervalMs) || intervalMs <= 0) throw new Error(`${name}: interval must be > 0 ms`)
    this.name = name
    this.intervalMs = intervalMs
    this.work = work
    this.log = log.child({ component: `jobs.${name}` })
    this.durationFactor = options.durationFactor ?? 0
  }

  start(): void {
    if (!this.stopped) return
    this.stopped = false
    if (this.abort.signal.aborted) this.abort = new AbortController()
    this.schedule()
  }

  async stop(): Promise<void> {
    this.stopped = true
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
    this.abort.abort()
    await this.running
  }

  async runOnce(): Promise<void> {
    const signal = this.abort.signal
    try {
      await this.work(signal)
    } catch (error) {
      // Only the abort itself is expected; any other failure, even during a stop, is an error.
      if (signal.aborted && error === signal.reason) this.log.info('background cycle cut by stop')
      // PostgreSQL down or read-only (a failover) is an outage the database part reports, not a job's fault.
      else if (classifyPgError(error) === 'unavailable')
        this.log.warn({ err: error }, 'background cycle skipped: database unavailable')
      else this.log.error({ err: error }, 'background cycle failed')
    } finally {
      cycleEvents.emit('cycle', this.name)
    }
  }

  private schedule(): void {
    if (this.stopped) return
    const jitter = 1 + (Math.random() * 0.2 - 0.1)
    const pause = Math.max(this.intervalMs * jitter, this.lastDurationMs * this.durationFactor)
    this.timer = setTimeout(() => {
      const started = performance.now()
      this.running = this.runOnce().finally(() => {
        this.lastDurationMs = performance.now() - started
        this.running = undefined
        this.schedule()
      })
    }, pause)
  }
}
