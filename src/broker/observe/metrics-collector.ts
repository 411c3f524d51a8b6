/**
 * Counts what the engines report through {@link BrokerEvents} into the structures the observers read:
 * the per-minute counters the metrics job writes to PostgreSQL, the interval counters of the `rates` log
 * block, and the totals since start that `GET /metrics` and `GET /api/v1/status` show. Everything here is
 * plain arithmetic on the event path; nothing touches the database inside push, pop or ack.
 */
import type { BrokerEvents } from './broker-events.js'
import { IntervalCounters } from './interval-counters.js'
import { MinuteCounters } from './minute-counters.js'

/** Totals of this replica since it started. */
export interface ReplicaTotals {
  /** HTTP requests completed. */
  requests: number
  /** Messages accepted by push (`queued` + `buffered`). */
  messages: number
  /** Messages delivered by pops. */
  delivered: number
  /** Requests per data-plane operation. */
  pushRequests: number
  popRequests: number
  ackRequests: number
}

/** Per-second rates of `GET /metrics`. */
export interface ReplicaRates {
  requests: number
  messages: number
}

interface RateMark {
  at: number
  requests: number
  messages: number
}

type Operation = 'push' | 'pop' | 'ack' | undefined

/** The data-plane operation a route pattern belongs to. */
export function operationOf(route: string): Operation {
  if (route === '/api/v1/push') return 'push'
  if (route === '/api/v1/pop' || route.startsWith('/api/v1/pop/')) return 'pop'
  if (route === '/api/v1/ack' || route === '/api/v1/ack/batch') return 'ack'
  return undefined
}

/** The event observer behind the per-minute metrics, the rates block and the JSON metrics. */
export class MetricsCollector {
  readonly minutes: MinuteCounters
  readonly interval: IntervalCounters
  readonly totals: ReplicaTotals = {
    requests: 0,
    messages: 0,
    delivered: 0,
    pushRequests: 0,
    popRequests: 0,
    ackRequests: 0,
  }
  private readonly startedAt: number
  private readonly now: () => number
  private marks: RateMark[] = []
  private readonly unobserve: () => void

  constructor(events: BrokerEvents, startedAt: number, now: () => number = Date.now) {
    this.now = now
    this.startedAt = startedAt
    this.minutes = new MinuteCounters(now)
    this.interval = new IntervalCounters(now)
    this.unobserve = events.observe({
      pushed: (tenant, queue, outcome, count) => {
        if (outcome !== 'queued' && outcome !== 'buffered') return
        this.minutes.queue(tenant, queue).push += count
        this.interval.counts.push += count
        if (outcome === 'buffered') this.interval.counts.buffered += count
        this.totals.messages += count
      },
      delivered: (tenant, queue, count, lagMs) => {
        const minute = this.minutes.queue(tenant, queue)
        minute.pop += count
        for (const lag of lagMs) {
          minute.lagSumMs += lag
          if (lag > minute.lagMaxMs) minute.lagMaxMs = lag
        }
        this.interval.counts.pop += count
        this.totals.delivered += count
      },
      acked: (tenant, queue, status, count) => {
        if (status !== 'completed') return
        this.minutes.queue(tenant, queue).ack += count
        this.interval.counts.ack += count
      },
      failed: (tenant, queue, _cause, count) => {
        this.minutes.queue(tenant, queue).failed += count
        this.interval.counts.failed += count
      },
      deadLettered: (tenant, queue, count) => {
        this.minutes.queue(tenant, queue).dlq += count
        this.interval.counts.dlq += count
      },
      request: (route, _method, _status, durationMs) => {
        this.minutes.addRequest()
        this.interval.counts.requests += 1
        this.interval.recordDuration(durationMs)
        this.totals.requests += 1
        switch (operationOf(route)) {
          case 'push':
            this.totals.pushRequests += 1
            break
          case 'pop':
            this.totals.popRequests += 1
            break
          case 'ack':
            this.totals.ackRequests += 1
            break
          case undefined:
            break
        }
      },
    })
  }

  /**
   * Marks the end of a stats interval (the stats job calls it every STATS_INTERVAL_MS); {@link rates} are
   * measured between the last two marks, so they cover one whole interval rather than a fraction of one.
   */
  markRates(): void {
    this.marks = [
      ...this.marks.slice(-1),
      { at: this.now(), requests: this.totals.requests, messages: this.totals.messages },
    ]
  }

  /** Requests and accepted messages per second over the last stats interval (since start before two marks). */
  rates(): ReplicaRates {
    const [previous, last] = this.marks
    if (previous && last && last.at > previous.at) {
      const seconds = (last.at - previous.at) / 1000
      return {
        requests: (last.requests - previous.requests) / seconds,
        messages: (last.messages - previous.messages) / seconds,
      }
    }
    const seconds = Math.max(1, (this.now() - this.startedAt) / 1000)
    return { requests: this.totals.requests / seconds, messages: this.totals.messages / seconds }
  }

  /** Stops observing events. */
  close(): void {
    this.unobserve()
  }
}
