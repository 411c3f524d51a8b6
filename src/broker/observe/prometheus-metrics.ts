/**
 * The Prometheus registry of one broker (docs/operations.md, "Prometheus series"): the process and Node.js metrics
 * under the `queen_` prefix and the broker's own families. One registry per broker instance rather than prom-client's
 * global one, so several brokers in one process (the tests) keep separate counters.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'
import { AUTH_FAILURE_REASONS } from './auth-failure-reasons.js'
import { WAKE_SOURCES } from './wake-sources.js'
import type { BrokerEvents } from './broker-events.js'
import { OTHER_QUEUE_LABEL, QueueLabels } from './queue-labels.js'
import type { StatsView } from './stats-view.js'

/** What the collectors read at scrape time. */
export interface PrometheusOptions {
  serverId: string
  version: string
  /** Process start, epoch ms. */
  startedAt: number
  /** Queues with series of their own (QUEEN_METRICS_MAX_QUEUES). */
  maxQueues: number
  /** Add a `tenant` label next to every `queue` label (tenancy on, docs/operations.md, "Prometheus series"). */
  tenantLabels: boolean
  pool: { readonly totalCount: number; readonly idleCount: number; readonly waitingCount: number }
  waiters: { readonly parked: number }
  /** Readiness round trip for `queen_db_healthy`. */
  checkDatabase: () => Promise<boolean>
  /** The snapshot copy the queue, lag and DLQ gauges read. */
  stats: StatsView
}

/** Request duration buckets, seconds: 1 ms to 10 s. */
const DURATION_BUCKETS_SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

let processRegistry: Registry | undefined

/**
 * The process and Node.js metrics, created once per process: collectDefaultMetrics starts an event-loop
 * delay monitor and a GC observer that are never stopped, and these series describe the process anyway,
 * so every broker registry in a process shares the one set.
 */
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry()
    collectDefaultMetrics({ register: processRegistry, prefix: 'queen_' })
  }
  return processRegistry
}

type Labels = Record<string, string>

/** Sets a labelled gauge from rows, summing (or combining) rows whose labels fold together. */
function setGrouped<Row>(
  gauge: Gauge,
  rows: readonly Row[],
  labelsOf: (row: Row) => Labels,
  valueOf: (row: Row) => number,
  combine: (a: number, b: number) => number = (a, b) => a + b,
): void {
  const grouped = new Map<string, { labels: Labels; value: number }>()
  for (const row of rows) {
    const labels = labelsOf(row)
    const key = JSON.stringify(labels)
    const current = grouped.get(key)
    grouped.set(key, { labels, value: current ? combine(current.value, valueOf(row)) : valueOf(row) })
  }
  gauge.reset()
  for (const { labels, value } of grouped.values()) gauge.set(labels, value)
}

/** The broker's metric families. */
export class BrokerMetrics {
  /** The registry `GET /metrics/prometheus` renders. */
  readonly registry: Registry
  /**
   * Spool gauges, 0 until the spool (another issue) sets them: `records`, `bytes`, `segments`, and the 0/1
   * flags `fallback` and `full`.
   */
  readonly spool: { records: Gauge; bytes: Gauge; segments: Gauge; fallback: Gauge; full: Gauge }
  /** Maintenance flags (0/1), 0 until maintenance mode (another issue) sets them. */
  readonly maintenance: { push: Gauge; pop: Gauge }
  /**
   * The mesh (docs/operations.md, "Prometheus series"): frames by type and direction, authentication failures,
   * configured peers by state and each peer's round trip; the gauges are set by the mesh part at scrape time.
   */
  readonly mesh: { frames: Counter; authFailures: Counter; peers: Gauge; rttSeconds: Gauge }
  private readonly own = new Registry()
  private readonly labels: QueueLabels
  private readonly tenantLabels: boolean
  private readonly httpRequests: Counter
  private readonly httpDuration: Histogram
  private readonly pushed: Counter
  private readonly delivered: Counter
  private readonly acked: Counter
  private readonly failures: Counter
  private readonly deadLettered: Counter
  private readonly encryptionFailures: Counter
  private readonly popWakeups: Counter
  private readonly authFailures: Counter
  private readonly jwksFetches: Counter

  constructor(options: PrometheusOptions) {
    this.labels = new QueueLabels(options.maxQueues)
    this.tenantLabels = options.tenantLabels
    const registers = [this.own]
    const queueLabels = options.tenantLabels ? ['tenant', 'queue'] : ['queue']
    const gauge = (name: string, help: string, labelNames: string[] = [], collect?: () => void | Promise<void>) =>
      new Gauge({ name, help, labelNames, registers, ...(collect ? { collect } : {}) })
    const counter = (name: string, help: string, labelNames: string[]) =>
      new Counter({ name, help, labelNames, registers })

    gauge('queen_build_info', 'Always 1; the labels name the build.', ['version', 'node', 'server_id']).set(
      { version: options.version, node: process.version, server_id: options.serverId },
      1,
    )
    const uptime = gauge('queen_uptime_seconds', 'Seconds since this broker started.', [], () =>
      uptime.set((Date.now() - options.startedAt) / 1000),
    )
    this.httpRequests = counter('queen_http_requests_total', 'HTTP requests answered.', ['route', 'method', 'status'])
    this.httpDuration = new Histogram({
      name: 'queen_http_request_duration_seconds',
      help: 'HTTP request duration, excluding the time long-poll pops spent parked.',
      labelNames: ['route'],
      buckets: DURATION_BUCKETS_SECONDS,
      registers,
    })
    this.pushed = counter('queen_messages_pushed_total', 'Push items by outcome.', [...queueLabels, 'outcome'])
    this.delivered = counter('queen_messages_delivered_total', 'Messages delivered by pops.', queueLabels)
    this.acked = counter('queen_messages_acked_total', 'Acks applied, by status.', [...queueLabels, 'status'])
    this.failures = counter('queen_message_failures_total', 'Delivery failures counted.', [...queueLabels, 'cause'])
    this.deadLettered = counter('queen_messages_dead_lettered_total', 'Messages dead-lettered.', queueLabels)
    this.encryptionFailures = counter(
      'queen_encryption_failures_total',
      'Payloads that could not be encrypted (push) or decrypted (pop: authentication failed).',
      ['op'],
    )
    for (const op of ['encrypt', 'decrypt']) this.encryptionFailures.inc({ op }, 0)
    this.authFailures = counter('queen_auth_failures_total', 'Requests refused by JWT auth (401, 403).', ['reason'])
    for (const reason of AUTH_FAILURE_REASONS) this.authFailures.inc({ reason }, 0)
    this.jwksFetches = counter('queen_jwks_fetches_total', 'JWKS fetches by outcome.', ['outcome'])
    for (const outcome of ['ok', 'error', 'timeout', 'invalid']) this.jwksFetches.inc({ outcome }, 0)
    const parked = gauge('queen_pop_parked', 'Long-poll pops parked on this broker.', [], () =>
      parked.set(options.waiters.parked),
    )
    this.popWakeups = counter(
      'queen_pop_wakeups_total',
      'Wake-ups of parked long-poll pops by source: each wake that found parked pops of its queue, and each backoff-timer re-check (lease-expiry wakes count as timer).',
      ['source'],
    )
    for (const source of WAKE_SOURCES) this.popWakeups.inc({ source }, 0)
    const pool = gauge(
      'queen_db_pool_connections',
      'PostgreSQL pool connections and waiting requests.',
      ['state'],
      () => {
        pool.set({ state: 'total' }, options.pool.totalCount)
        pool.set({ state: 'idle' }, options.pool.idleCount)
        pool.set({ state: 'waiting' }, options.pool.waitingCount)
      },
    )
    const healthy = gauge('queen_db_healthy', '1 when PostgreSQL answered a round trip.', [], async () =>
      healthy.set((await options.checkDatabase()) ? 1 : 0),
    )
    this.spool = {
      records: gauge('queen_spool_records', 'Spooled records awaiting replay.'),
      bytes: gauge('queen_spool_bytes', 'Bytes of spooled records awaiting replay.'),
      segments: gauge('queen_spool_segments', 'Spool segment files.'),
      fallback: gauge('queen_spool_fallback', '1 when the spool uses its fallback directory.'),
      full: gauge('queen_spool_full', '1 when the spool refuses records (disk or cap full).'),
    }
    this.maintenance = {
      push: gauge('queen_maintenance_mode_enabled', '1 while push maintenance mode is on.'),
      pop: gauge('queen_pop_maintenance_mode_enabled', '1 while pop maintenance mode is on.'),
    }
    this.mesh = {
      frames: counter('queen_mesh_frames_total', 'Authenticated mesh frames by type and direction.', [
        'type',
        'direction',
      ]),
      authFailures: counter(
        'queen_mesh_auth_failures_total',
        'Mesh connections closed for a failed handshake, a bad MAC or an out-of-order sequence number.',
        [],
      ),
      peers: gauge('queen_mesh_peers', 'Configured mesh peers by state.', ['state']),
      rttSeconds: gauge('queen_mesh_peer_rtt_seconds', 'Heartbeat round trip to each mesh peer.', ['peer']),
    }
    this.mesh.authFailures.inc(0)
    this.snapshotGauges(options.stats, gauge, queueLabels)
    this.registry = Registry.merge([processMetrics(), this.own])
  }

  /** Counts the engines' events; returns a function that stops counting. */
  observe(events: BrokerEvents): () => void {
    return events.observe({
      pushed: (tenant, queue, outcome, count) => this.pushed.inc({ ...this.queue(tenant, queue), outcome }, count),
      delivered: (tenant, queue, count) => {
        if (count > 0) this.delivered.inc(this.queue(tenant, queue), count)
      },
      acked: (tenant, queue, status, count) => this.acked.inc({ ...this.queue(tenant, queue), status }, count),
      failed: (tenant, queue, cause, count) => this.failures.inc({ ...this.queue(tenant, queue), cause }, count),
      deadLettered: (tenant, queue, count) => this.deadLettered.inc(this.queue(tenant, queue), count),
      encryptionFailed: (op, count) => this.encryptionFailures.inc({ op }, count),
      popWakeup: (source) => this.popWakeups.inc({ source }),
      authFailed: (reason) => this.authFailures.inc({ reason }),
      jwksFetched: (outcome) => this.jwksFetches.inc({ outcome }),
      request: (route, method, status, durationMs) => {
        this.httpRequests.inc({ route, method, status: String(status) })
        this.httpDuration.observe({ route }, durationMs / 1000)
      },
    })
  }

  private readonly collectors: (() => void)[] = []

  /** Registers a function that sets gauges from live state just before every scrape. */
  onCollect(collector: () => void): void {
    this.collectors.push(collector)
  }

  /** The exposition text of every family. */
  async exposition(): Promise<string> {
    for (const collector of this.collectors) collector()
    return this.registry.metrics()
  }

  /** `text/plain; version=0.0.4; charset=utf-8`. */
  get contentType(): string {
    return this.registry.contentType
  }

  private queue(tenant: string, queue: string): Labels {
    const label = this.labels.label(tenant, queue)
    return this.tenantLabels ? { tenant, queue: label } : { queue: label }
  }

  /** Gauges read from the stats snapshot copy at scrape time. */
  private snapshotGauges(
    stats: StatsView,
    gauge: (name: string, help: string, labelNames: string[], collect: () => void) => Gauge,
    queueLabels: string[],
  ): void {
    const byQueue = (name: string, help: string, valueOf: (row: StatsView['queues'][number]) => number) => {
      const family: Gauge = gauge(name, help, queueLabels, () =>
        setGrouped(family, stats.queues, (row) => this.queue(row.tenant, row.queue), valueOf),
      )
    }
    byQueue('queen_queue_pending_messages', 'Pending messages per queue (stats snapshot).', (row) => row.pending)
    byQueue('queen_queue_processing_messages', 'Messages under a live lease (stats snapshot).', (row) => row.processing)
    byQueue('queen_dlq_depth', 'Dead-letter entries per queue (stats snapshot).', (row) => row.deadLetter)
    const groupLabels = (row: StatsView['consumers'][number]): Labels => {
      const labels = this.queue(row.tenant, row.queue)
      // A folded queue folds its groups too, or `_other` would still carry one series per group.
      return { ...labels, group: labels.queue === OTHER_QUEUE_LABEL ? OTHER_QUEUE_LABEL : row.group }
    }
    const lagMessages: Gauge = gauge(
      'queen_consumer_lag_messages',
      'Unsettled messages above the group cursors (stats snapshot).',
      [...queueLabels, 'group'],
      () => setGrouped(lagMessages, stats.consumers, groupLabels, (row) => row.lagMessages),
    )
    const lagSeconds: Gauge = gauge(
      'queen_consumer_lag_seconds',
      'Age of the oldest unsettled message of the group (stats snapshot).',
      [...queueLabels, 'group'],
      () => setGrouped(lagSeconds, stats.consumers, groupLabels, (row) => row.lagSeconds, Math.max),
    )
  }
}
