/**
 * Counts each request of a tenant (docs/gateway.md, "Metering"): into the hourly meter flushed to PostgreSQL and into
 * the Prometheus series. Answers with message counts (push, pop, ack, transaction) are read whole first; every other
 * answer streams through a byte counter.
 */
import { Transform, type Readable } from 'node:stream'
import { buffer as readWhole } from 'node:stream/consumers'
import { pipeline } from 'node:stream/promises'
import type { GatewayMetrics } from './gateway-metrics.js'
import { messageCounts, meteredRoute } from './message-counts.js'
import type { UsageCounts, UsageMeter } from './usage-meter.js'

/** Who a request counts for. */
export interface MeteredTenant {
  readonly tenantId: string
  readonly tenantName: string
}

/** A broker's answer as forward.ts hands it over. */
export interface MeteredAnswer {
  readonly statusCode: number
  readonly body: Readable
}

export class RequestMetering {
  private readonly meter: UsageMeter
  private readonly metrics: GatewayMetrics

  constructor(meter: UsageMeter, metrics: GatewayMetrics) {
    this.meter = meter
    this.metrics = metrics
  }

  private count(tenant: MeteredTenant, status: number, startedAt: number, counts: Partial<UsageCounts>): void {
    this.meter.add(tenant.tenantId, { requests: 1, ...counts })
    this.metrics.request(tenant.tenantName, status, (performance.now() - startedAt) / 1000, counts)
  }

  /**
   * A request the gateway answered itself (refused, or no broker answered) with `answer`, sent as JSON; counted for
   * its tenant when it has one. Returns the answer to send.
   */
  answered<T>(
    tenant: MeteredTenant | undefined,
    status: number,
    reason: string,
    startedAt: number,
    bytesIn: number,
    answer: T,
  ): T {
    this.metrics.refused(reason)
    if (tenant) this.count(tenant, status, startedAt, { bytesIn, bytesOut: Buffer.byteLength(JSON.stringify(answer)) })
    return answer
  }

  /** The body to send for a broker's answer, counted once it is all sent (or given up). */
  async body(
    tenant: MeteredTenant | undefined,
    request: { method: string; path: string; body: Buffer | undefined },
    answer: MeteredAnswer,
    startedAt: number,
  ): Promise<Buffer | Readable> {
    if (!tenant) return answer.body
    const bytesIn = request.body?.length ?? 0
    const route = meteredRoute(request.method, request.path)
    if (route) {
      const whole = await readWhole(answer.body)
      const messages = messageCounts(route, answer.statusCode, request.body, whole)
      this.count(tenant, answer.statusCode, startedAt, { bytesIn, bytesOut: whole.length, ...messages })
      return whole
    }
    let bytesOut = 0
    let counted = false
    const finish = () => {
      if (counted) return
      counted = true
      this.count(tenant, answer.statusCode, startedAt, { bytesIn, bytesOut })
    }
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        bytesOut += chunk.length
        done(null, chunk)
      },
    })
    counter.once('end', finish)
    counter.once('close', finish)
    pipeline(answer.body, counter).catch(() => undefined)
    return counter
  }
}
