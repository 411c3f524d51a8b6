/**
 * The brokers behind the gateway (docs/gateway.md, "Brokers"): one keep-alive pool per broker, a health probe of
 * each on `/health` every PROXY_HEALTH_INTERVAL_MS, and the order to try them in for a request: healthy brokers
 * round-robin, then the others as a last resort (a probe can be a moment behind).
 */
import type { Logger } from 'pino'
import { Pool } from 'undici'

const PROBE_TIMEOUT_MS = 2000

/** One broker. */
export interface Upstream {
  readonly url: string
  readonly pool: Pool
  healthy: boolean
  lastError?: string
  lastProbeAt?: string
}

/** What `/proxy/health` shows of a broker. */
export interface UpstreamState {
  readonly url: string
  readonly healthy: boolean
  readonly lastError?: string
  readonly lastProbeAt?: string
}

export class UpstreamSet {
  readonly upstreams: readonly Upstream[]
  private next = 0
  private timer: NodeJS.Timeout | undefined
  private probing: Promise<void> | undefined

  private readonly log: Logger
  private readonly intervalMs: number

  constructor(
    urls: readonly string[],
    options: { connections: number; timeoutMs: number; healthIntervalMs: number },
    log: Logger,
  ) {
    this.log = log
    this.upstreams = urls.map((url) => ({
      url,
      // Healthy until a probe says otherwise: the first request need not wait for the first probe.
      healthy: true,
      pool: new Pool(url, {
        connections: options.connections,
        headersTimeout: options.timeoutMs,
        bodyTimeout: options.timeoutMs,
        keepAliveTimeout: 30_000,
      }),
    }))
    this.intervalMs = options.healthIntervalMs
  }

  /** Probes every broker now and then on the interval. */
  async start(): Promise<void> {
    await this.probeAll()
    this.timer = setInterval(() => {
      this.probing ??= this.probeAll().finally(() => (this.probing = undefined))
    }, this.intervalMs)
    this.timer.unref()
  }

  /** The brokers to try for one request, in order. */
  order(): Upstream[] {
    const count = this.upstreams.length
    const start = this.next++ % count
    const rotated = [...this.upstreams.slice(start), ...this.upstreams.slice(0, start)]
    return [...rotated.filter((up) => up.healthy), ...rotated.filter((up) => !up.healthy)]
  }

  /** A request found this broker unreachable: skip it until a probe finds it again. */
  markDown(upstream: Upstream, reason: string): void {
    if (upstream.healthy) this.log.warn({ upstream: upstream.url, reason }, 'broker unreachable')
    upstream.healthy = false
    upstream.lastError = reason
  }

  states(): UpstreamState[] {
    return this.upstreams.map(({ url, healthy, lastError, lastProbeAt }) => ({ url, healthy, lastError, lastProbeAt }))
  }

  private async probeAll(): Promise<void> {
    await Promise.all(this.upstreams.map((upstream) => this.probe(upstream)))
  }

  private async probe(upstream: Upstream): Promise<void> {
    let reason: string | undefined
    try {
      const response = await upstream.pool.request({
        path: '/health',
        method: 'GET',
        headersTimeout: PROBE_TIMEOUT_MS,
        bodyTimeout: PROBE_TIMEOUT_MS,
      })
      await response.body.dump()
      if (response.statusCode !== 200) reason = `/health answered ${response.statusCode}`
    } catch (error) {
      reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message
    }
    upstream.lastProbeAt = new Date().toISOString()
    if (reason === undefined) {
      if (!upstream.healthy) this.log.info({ upstream: upstream.url }, 'broker reachable again')
      upstream.healthy = true
      upstream.lastError = undefined
    } else this.markDown(upstream, reason)
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer)
    await this.probing
    await Promise.all(this.upstreams.map((upstream) => upstream.pool.close()))
  }
}
