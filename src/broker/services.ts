/**
 * The running parts of a broker that routes use: the pool, the engines, the waiters and the state of the
 * process. Created once per broker by {@link createServices}; `app.ts` exposes them as `app.broker`.
 */
import type pg from 'pg'
import { AckEngine } from './engine/ack-engine.js'
import { PopEngine } from './engine/pop-engine.js'
import { PopWaiters } from './engine/pop-waiters.js'
import { PushEngine } from './engine/push-engine.js'
import { QueueRegistry } from './engine/queue-registry.js'
import { TransactionEngine } from './engine/transaction-engine.js'
import type { HealthProbe } from './db/health-probe.js'
import { BrokerEvents } from './observe/broker-events.js'
import { createObservability, type Observability } from './observe/observability.js'
import pino, { type Logger } from 'pino'
import type { DbHealth } from './engine/db-health.js'
import { MaintenanceFlags } from './engine/maintenance.js'
import { PushRouter } from './engine/push-router.js'
import type { Spool } from './spool/spool.js'
import type { HintChannel } from './db/hint-channel.js'
import { PayloadCipher } from './crypto/payload-cipher.js'
import { PopDecryption } from './crypto/pop-decryption.js'
import { PushEncryption } from './crypto/push-encryption.js'

/** The configuration the request path reads (a view of BrokerConfig). */
export interface ServicesConfig {
  serverId: string
  version: string
  maxBodyBytes: number
  maxBatchItems: number
  maxPopBatch: number
  defaultTimeoutMs: number
  defaultBatchSize: number
  /** 'all' | 'new' (new-only is normalised to new). */
  defaultSubscriptionMode: 'all' | 'new'
  stateRefreshMs: number
  poolSize: number
  /** QUEEN_ENCRYPTION_KEY (64 hex characters, validated at boot); absent = no encryption (semantics.md 9). */
  encryptionKey?: string
  popWait: { initialIntervalMs: number; backoffThreshold: number; backoffMultiplier: number; maxIntervalMs: number }
  /** Push lanes (parallel batches over disjoint partitions); default 2. */
  pushLanes?: number
  /** QUEEN_TEST_HOOKS: enables the fault-injection route of the reliability tests; never in production. */
  testHooks?: boolean
  /** Stats snapshot refresh, ms (`STATS_INTERVAL_MS`); default 10000. */
  statsIntervalMs?: number
  /** Per-minute metrics write, s (`METRICS_AGGREGATE_INTERVAL_S`); default 60. */
  metricsAggregateIntervalSeconds?: number
  /** `rates`/`sizes` log blocks, ms; 0 = off (`QUEEN_LOG_STATS_INTERVAL_MS`); default 30000. */
  logStatsIntervalMs?: number
  /** Per-queue Prometheus series before `_other` (`QUEEN_METRICS_MAX_QUEUES`); default 1000. */
  metricsMaxQueues?: number
}

/** Lifecycle of the process as /health reports it. */
export type BrokerPhase = 'starting' | 'ready' | 'draining'

/** Everything the routes need. */
export interface BrokerServices {
  config: ServicesConfig
  pool: pg.Pool
  registry: QueueRegistry
  waiters: PopWaiters
  push: PushEngine
  ack: AckEngine
  pop: PopEngine
  transactions: TransactionEngine
  health: HealthProbe
  /** Data-plane events for metrics and logs. */
  events: BrokerEvents
  /** Metrics, the stats snapshot and their background jobs (`observability.jobs` are started by the server). */
  observability: Observability
  /** Sends each push to PostgreSQL or the spool. */
  ingest: PushRouter
  /** The cluster-wide maintenance flags as this replica knows them. */
  maintenance: MaintenanceFlags
  /** The disk spool; absent when the broker runs without one (tests). */
  spool?: Spool
  /** PostgreSQL reachability; absent without a spool (every push then goes to PostgreSQL). */
  dbHealth?: DbHealth
  /** Hints to and from other replicas through PostgreSQL notifications. */
  hints?: HintChannel
  /** The payload cipher (QUEEN_ENCRYPTION_KEY); absent without a key. */
  cipher?: PayloadCipher
  state: { phase: BrokerPhase; startedAt: number }
  /** Wakes parked pops of a queue (or partition) here and, through the hint channel, on every replica. */
  wake: (tenant: string, queue: string, partition: string | null) => void
  /** Logs an error from a background path (waiter attempts, wake-ups). */
  reportError: (error: unknown, context: string) => void
}

/** Wires the engines together around a pool. */
export function createServices(
  config: ServicesConfig,
  pool: pg.Pool,
  health: HealthProbe,
  reportError: BrokerServices['reportError'],
  options: { log?: Logger; spool?: Spool; dbHealth?: DbHealth; hints?: HintChannel } = {},
): BrokerServices {
  const log = options.log ?? pino({ enabled: false })
  const registry = new QueueRegistry(pool, config.stateRefreshMs)
  const events = new BrokerEvents()
  const waiters = new PopWaiters(
    config.popWait,
    (error) => reportError(error, 'pop waiter'),
    (source) => events.emit('popWakeup', source),
  )
  // Local waiters first; other replicas hear of it through PostgreSQL (coalesced by the hint channel).
  const wake = (tenant: string, queue: string, partition: string | null, recheckHere = true) => {
    if (recheckHere) waiters.wake(tenant, queue, partition)
    options.hints?.publish({ type: 'POP_WAKE', wakes: [{ tenant, queue, partition }] })
  }
  const wakeListener = { messagesStored: wake, leaseReleased: wake }
  // Each batch in flight holds one connection; leave the rest of the pool to pops and admin routes.
  const maxInFlight = Math.max(1, Math.floor(config.poolSize / 4))
  // One batch in flight per push lane, never more than a quarter of the pool. Two lanes: measured with
  // `npm run bench -- --quick` on 2 cores (two runs each), 2 lanes beat 4 in every push scenario (push-1
  // 4,900-5,200 msg/s against 3,900-4,000; fan-out 21,000-23,100 deliveries/s against 18,600-19,700; e2e p50
  // 4.4 ms against 6.2) because fewer, larger batches cost PostgreSQL less per message, and 1 lane lost
  // push-100 and fan-out (nothing overlaps the broker's work with PostgreSQL's). With two or more lanes, small
  // requests have one more lane of their own (PushEngine.submitByLane), so up to pushLanes + 1 batches run.
  const pushLanes = Math.max(1, Math.min(config.pushLanes ?? 2, Math.floor(config.poolSize / 4)))
  const cipher = config.encryptionKey === undefined ? undefined : new PayloadCipher(config.encryptionKey)
  const encryption = new PushEncryption(registry, cipher, () => events.emit('encryptionFailed', 'encrypt', 1))
  const push = new PushEngine(
    pool,
    registry,
    wakeListener,
    { lanes: pushLanes, maxBatchItems: config.maxBatchItems, encryption },
    events,
  )
  const ack = new AckEngine(pool, wakeListener, waiters, { maxInFlight, maxBatchItems: config.maxBatchItems }, events)
  const maintenance = new MaintenanceFlags(pool, log)
  // Pops parked through pop-maintenance try again once it ends.
  maintenance.onChange((kind, enabled) => {
    if (kind === 'pop' && !enabled) waiters.wakeAll()
  })
  const ingest = new PushRouter({
    engine: push,
    registry,
    events,
    spool: options.spool,
    dbHealth: options.dbHealth,
    maintenance,
    encryption,
  })
  const state = { phase: 'starting' as BrokerPhase, startedAt: Date.now() }
  const observability = createObservability({
    pool,
    events,
    waiters,
    serverId: config.serverId,
    version: config.version,
    startedAt: state.startedAt,
    checkDatabase: () => health.check(),
    statsIntervalMs: config.statsIntervalMs,
    metricsAggregateIntervalSeconds: config.metricsAggregateIntervalSeconds,
    logStatsIntervalMs: config.logStatsIntervalMs,
    metricsMaxQueues: config.metricsMaxQueues,
    log,
  }) // Spool and maintenance gauges read the live state at every scrape.
  observability.metrics.onCollect(() => {
    const spool = options.spool
    const gauges = observability.metrics.spool
    gauges.records.set(spool?.size.records ?? 0)
    gauges.bytes.set(spool?.size.bytes ?? 0)
    gauges.segments.set(spool?.segmentCount ?? 0)
    gauges.fallback.set(spool?.state === 'fallback' ? 1 : 0)
    gauges.full.set(spool?.state === 'full' ? 1 : 0)
    observability.metrics.maintenance.push.set(maintenance.push ? 1 : 0)
    observability.metrics.maintenance.pop.set(maintenance.pop ? 1 : 0)
  })

  return {
    config,
    pool,
    registry,
    waiters,
    push,
    ack,
    pop: new PopEngine(pool, registry, waiters, events, maintenance, new PopDecryption(pool, cipher, events, reportError)),
    transactions: new TransactionEngine(pool, push, ack, wakeListener, {
      pushMaintenance: () => maintenance.push,
      partitionHasSpooled: (tenant, queue, partition) => ingest.partitionHasSpooled(tenant, queue, partition),
    }),
    health,
    events,
    ingest,
    maintenance,
    spool: options.spool,
    dbHealth: options.dbHealth,
    hints: options.hints,
    cipher,
    observability,
    state,
    wake,
    reportError,
  }
}
