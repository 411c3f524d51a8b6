/**
 * Whether PostgreSQL is believed reachable (docs/operations.md, "When a push is spooled"): the first outage-class
 * failure marks it down, so later pushes go straight to the spool instead of waiting for a connection, and a probe
 * every second marks it up again, which starts spool replay.
 */
import type { Logger } from 'pino'
import type { HealthProbe } from '../../platform/postgres/health-probe.js'

const PROBE_INTERVAL_MS = 1000
const WARNING_INTERVAL_MS = 60_000

/** Database reachability as seen by this broker. */
export class DbHealth {
  private up: boolean
  private readonly probe: HealthProbe
  private readonly log: Logger
  private readonly onUp: (() => void)[] = []
  private timer: NodeJS.Timeout | undefined
  private downSince = 0
  private lastWarning = 0
  private stopped = false

  constructor(probe: HealthProbe, log: Logger, initiallyUp = true) {
    this.probe = probe
    this.log = log
    this.up = initiallyUp
    if (!initiallyUp) this.startProbing()
  }

  /** True while PostgreSQL is believed reachable. */
  get healthy(): boolean {
    return this.up
  }

  /** Registers a callback for the moment PostgreSQL becomes reachable again. */
  whenUp(callback: () => void): void {
    this.onUp.push(callback)
  }

  /** Marks PostgreSQL unreachable after an outage-class failure and starts probing. */
  markDown(error: unknown): void {
    if (this.up) {
      this.up = false
      this.downSince = Date.now()
    }
    if (Date.now() - this.lastWarning >= WARNING_INTERVAL_MS) {
      this.lastWarning = Date.now()
      this.log.warn({ err: error, since: new Date(this.downSince).toISOString() }, 'database unreachable')
    }
    this.startProbing()
  }

  /** Stops probing (shutdown). */
  stop(): void {
    this.stopped = true
    if (this.timer) clearTimeout(this.timer)
  }

  private startProbing(): void {
    if (this.timer || this.stopped) return
    const tick = () => {
      this.probe
        .check()
        .then((reachable) => {
          this.timer = undefined
          if (reachable) {
            const downMs = Date.now() - this.downSince
            this.up = true
            this.log.info({ down_ms: downMs }, 'database reachable')
            for (const callback of this.onUp) callback()
          } else {
            this.startProbing()
          }
        })
        .catch(() => {
          this.timer = undefined
          this.startProbing()
        })
    }
    this.timer = setTimeout(tick, PROBE_INTERVAL_MS)
    this.timer.unref()
  }
}
