/**
 * The gateway's own Prometheus series (docs/gateway.md, "Metering"): requests, messages and bytes per tenant, refusals
 * by reason, the health of each broker, and the process figures prom-client collects. Served on `/proxy/metrics` to
 * a caller holding PROXY_METRICS_TOKEN only: the series name every tenant.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'
import type { UsageCounts } from './usage-meter.js'

export class GatewayMetrics {
  readonly registry = new Registry()
  private readonly requests: Counter<'tenant' | 'status'>
  private readonly messages: Counter<'tenant' | 'kind'>
  private readonly bytes: Counter<'tenant' | 'direction'>
  private readonly refusals: Counter<'reason'>
  private readonly duration: Histogram<'status'>

  constructor(brokers: () => readonly { url: string; healthy: boolean }[]) {
    const registers = [this.registry]
    this.requests = new Counter({
      name: 'queen_proxy_requests_total',
      help: 'Requests of a tenant (a valid key), by answer status class',
      labelNames: ['tenant', 'status'],
      registers,
    })
    this.messages = new Counter({
      name: 'queen_proxy_messages_total',
      help: 'Messages pushed, delivered and acked through the gateway, per tenant',
      labelNames: ['tenant', 'kind'],
      registers,
    })
    this.bytes = new Counter({
      name: 'queen_proxy_bytes_total',
      help: 'Body bytes in (requests) and out (answers), per tenant',
      labelNames: ['tenant', 'direction'],
      registers,
    })
    this.refusals = new Counter({
      name: 'queen_proxy_refusals_total',
      help: 'Requests refused by the gateway before a broker saw them, by reason',
      labelNames: ['reason'],
      registers,
    })
    this.duration = new Histogram({
      name: 'queen_proxy_request_duration_seconds',
      help: 'Time from the request to the end of its answer, through the gateway',
      labelNames: ['status'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    })
    new Gauge({
      name: 'queen_proxy_upstream_healthy',
      help: '1 when the broker answered its last /health probe, else 0',
      labelNames: ['upstream'],
      registers,
      collect() {
        for (const broker of brokers()) this.set({ upstream: broker.url }, broker.healthy ? 1 : 0)
      },
    })
    collectDefaultMetrics({ register: this.registry, prefix: 'queen_proxy_' })
  }

  /** One finished request of a tenant. */
  request(tenant: string, status: number, seconds: number, counts: Partial<UsageCounts>): void {
    const statusClass = `${Math.floor(status / 100)}xx`
    this.requests.inc({ tenant, status: statusClass })
    this.duration.observe({ status: statusClass }, seconds)
    if (counts.messagesPushed) this.messages.inc({ tenant, kind: 'pushed' }, counts.messagesPushed)
    if (counts.messagesDelivered) this.messages.inc({ tenant, kind: 'delivered' }, counts.messagesDelivered)
    if (counts.messagesAcked) this.messages.inc({ tenant, kind: 'acked' }, counts.messagesAcked)
    if (counts.bytesIn) this.bytes.inc({ tenant, direction: 'in' }, counts.bytesIn)
    if (counts.bytesOut) this.bytes.inc({ tenant, direction: 'out' }, counts.bytesOut)
  }

  refused(reason: string): void {
    this.refusals.inc({ reason })
  }
}
