/**
 * The dashboard's polling loop (docs/cli.md, "The top dashboard"): every interval, each route the screen needs is
 * requested unless its previous request is still in flight, so a slow route never piles requests up on the broker and a
 * fast one is not held back by it. A failure is reported and the route is tried again on the next tick, forever: an
 * unreachable broker is a state of the dashboard, not the end of it.
 */
import { neededRoutes, routeRequest, type PollContext, type RouteKey, type RouteRequest } from './routes.js'

/** What the poller needs from its owner. */
export interface PollerOptions {
  /** Sends one request and resolves with the parsed answer (rejects on any failure). */
  fetch(request: RouteRequest): Promise<unknown>
  /** The screen's state when a tick starts (pane, drill-in). */
  screen(): Pick<PollContext, 'pane' | 'drilledQueue'>
  onAnswer(key: RouteKey, answer: unknown, at: number): void
  onFailure(key: RouteKey, error: unknown, at: number): void
  /** Time between ticks, ms. */
  intervalMs: number
  now?: () => number
}

/** The polling loop of one dashboard. */
export class TopPoller {
  private readonly options: PollerOptions
  private readonly now: () => number
  private readonly inFlight = new Map<RouteKey, Promise<void>>()
  private timer: NodeJS.Timeout | undefined
  private intervalMs: number
  private paused = false
  private stopped = true
  private opsLoaded = false
  /** Routes whose answer in flight was asked before a change and must be asked again when it lands. */
  private readonly rereads = new Set<RouteKey>()

  constructor(options: PollerOptions) {
    this.options = options
    this.now = options.now ?? Date.now
    this.intervalMs = options.intervalMs
  }

  /** Starts polling with an immediate tick. */
  start(): void {
    this.stopped = false
    this.tick()
  }

  /** Stops the loop; answers still in flight are dropped. */
  stop(): void {
    this.stopped = true
    clearTimeout(this.timer)
    this.timer = undefined
  }

  /** Polls now (after a pane switch or a maintenance toggle) and restarts the interval from here. */
  pollNow(): void {
    if (!this.stopped) this.tick()
  }

  /**
   * Reads `key` again after a change the dashboard made (a maintenance write): an answer already in flight
   * was asked before the change, so it is dropped and the route asked once more when it lands, keeping one
   * request in flight per route.
   */
  reread(key: RouteKey): void {
    if (this.stopped) return
    if (this.inFlight.has(key)) this.rereads.add(key)
    else this.launch(key, routeRequest(key, { ...this.options.screen(), opsLoaded: this.opsLoaded, now: this.now() }))
  }

  /** Changes the interval; the next tick comes one new interval from now. */
  setIntervalMs(intervalMs: number): void {
    this.intervalMs = intervalMs
    this.schedule()
  }

  /** Pauses (no requests, data frozen) or resumes with an immediate tick. */
  setPaused(paused: boolean): void {
    const resumed = this.paused && !paused
    this.paused = paused
    if (resumed) this.pollNow()
  }

  /** Routes whose request is in flight. */
  get pending(): RouteKey[] {
    return [...this.inFlight.keys()]
  }

  /** Resolves when every request in flight has settled (tests and shutdown). */
  async settled(): Promise<void> {
    await Promise.all(this.inFlight.values())
  }

  private schedule(): void {
    clearTimeout(this.timer)
    if (this.stopped) return
    this.timer = setTimeout(() => this.tick(), this.intervalMs)
  }

  private tick(): void {
    if (!this.paused) {
      const context: PollContext = { ...this.options.screen(), opsLoaded: this.opsLoaded, now: this.now() }
      for (const key of neededRoutes(context)) {
        if (!this.inFlight.has(key)) this.launch(key, routeRequest(key, context))
      }
    }
    this.schedule()
  }

  private launch(key: RouteKey, request: RouteRequest): void {
    const done = this.options.fetch(request).then(
      (answer) => {
        if (this.stopped || this.rereads.has(key)) return
        if (key === 'queueOps') this.opsLoaded = true
        this.options.onAnswer(key, answer, this.now())
      },
      (error: unknown) => {
        if (!this.stopped && !this.rereads.has(key)) this.options.onFailure(key, error, this.now())
      },
    )
    const tracked = done.finally(() => {
      this.inFlight.delete(key)
      if (this.rereads.delete(key)) this.reread(key)
    })
    this.inFlight.set(key, tracked)
  }
}
