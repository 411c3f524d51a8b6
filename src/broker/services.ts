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
import { StreamsEngine } from './engine/streams-engine.js'
import type { HealthProbe } from '../platform/postgres/health-probe.js'
import { BrokerEvents } from './observe/broker-events.js'
import { createObservabilityJobs, type ObservabilityJobs } from './jobs/observability-jobs.js'
import { createObservability, type Observability } from './observe/observability.js'
import pino, { type Logger } from 'pino'
import type { DbHealth } from './engine/db-health.js'
import { MaintenanceFlags } from './engine/maintenance.js'
import { PushRouter } from './engine/push-router.js'
import type { Spool } from './spool/spool.js'
import type { HintChannel } from './db/hint-channel.js'
import { HintEffects } from './engine/hint-effects.js'
import { HintOutbox } from './engine/hint-outbox.js'
import { PayloadCipher } from './crypto/payload-cipher.js'
import { PopDecryption } from './crypto/pop-decryption.js'
import { PushEncryption } from './engine/push-encryption.js'
import type { BrokerConfig } from './config/broker-config.js'
import { BROKER_VERSION } from './version.js'

/** The slice of the configuration the engines and routes read. */
export type EngineConfig = Pick<
  BrokerConfig,
  | 'serverId'
  | 'maxBodyBytes'
  | 'maxBatchItems'
  | 'maxPopBatch'
  | 'maxQueuesPerRequest'
  | 'maxPartitionsPerRequest'
  | 'defaultTimeoutMs'
  | 'defaultBatchSize'
  | 'defaultSubscriptionMode'
  | 'encryptionKey'
  | 'popWait'
  | 'testHooks'
  | 'pg'
  | 'jobs'
  | 'log'
  | 'tenancy'
>

/** Push batches in flight at once over disjoint partitions (bench/README.md: 2 lanes beat 1 and 4). */
const PUSH_LANES = 2

/** Lifecycle of the process as /health reports it. */
export type BrokerPhase = 'starting' | 'ready' | 'draining'

/** Everything the routes need. */
export interface BrokerServices {
  config: EngineConfig
  pool: pg.Pool
  registry: QueueRegistry
  waiters: PopWaiters
  push: PushEngine
  ack: AckEngine
  pop: PopEngine
  transactions: TransactionEngine
  /** The streaming SDK's cycles, state and query registry. */
  streams: StreamsEngine
  health: HealthProbe
  /** Data-plane events for metrics and logs. */
  events: BrokerEvents
  /** Metrics, the stats snapshot and their background jobs (`observability.jobs` are started by the server). */
  observability: Observability & ObservabilityJobs
  /** Sends each push to PostgreSQL or the spool. */
  ingest: PushRouter
  /** The cluster-wide maintenance flags as this replica knows them. */
  maintenance: MaintenanceFlags
  /** The disk spool; absent when the broker runs without one (tests). */
  spool?: Spool
  /** PostgreSQL reachability; absent without a spool (every push then goes to PostgreSQL). */
  dbHealth?: DbHealth
  /** Hints to the other replicas, by every path (PostgreSQL notifications, the mesh). */
  hints: HintOutbox
  /** Applies hints from the other replicas, once per wake whichever path brought it. */
  hintEffects: HintEffects
  /** The PostgreSQL notification channel; absent without durability (tests). */
  hintChannel?: HintChannel
  /** The payload cipher (QUEEN_ENCRYPTION_KEY); absent without a key. */
  cipher?: PayloadCipher
  state: { phase: BrokerPhase; startedAt: number }
  /** Wakes parked pops of a queue (or partition) here and, through the hint paths, on every replica. */
  wake: (tenant: string, queue: string, partition: string | null) => void
  /** Logs an error from a background path (waiter attempts, wake-ups). */
  reportError: (error: unknown, context: string) => void
}

/** Wires the engines together around a pool. */
export function createServices(
  config: EngineConfig,
  pool: pg.Pool,
  health: HealthProbe,
  reportError: BrokerServices['reportError'],
  options: { log?: Logger; spool?: Spool; dbHealth?: DbHealth; hints?: HintChannel } = {},
): BrokerServices {
  const log = options.log ?? pino({ enabled: false })
  const registry = new QueueRegistry(pool, config.jobs.stateRefreshMs)
  const events = new BrokerEvents()
  const waiters = new PopWaiters(
    config.popWait,
    (error) => reportError(error, 'pop waiter'),
    (source) => events.emit('popWakeup', source),
  )
  const hints = new HintOutbox([options.hints])
  // Local waiters first; other replicas hear of it through PostgreSQL and the mesh (each coalesces).
  const wake = (tenant: string, queue: string, partition: string | null, recheckHere = true) => {
    if (recheckHere) waiters.wake(tenant, queue, partition)
    hints.publish({ type: 'POP_WAKE', wakes: [{ tenant, queue, partition }] })
  }
  const wakeListener = { messagesStored: wake, leaseReleased: wake }
  // Each batch in flight holds one connection; leave the rest of the pool to pops and admin routes.
  const maxInFlight = Math.max(1, Math.floor(config.pg.poolSize / 4))
  const pushLanes = Math.max(1, Math.min(PUSH_LANES, maxInFlight))
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
  // Pops parked through pop-maintenance try again once it ends; an operator's change reaches every replica.
  maintenance.onChange((kind, enabled, source) => {
    if (kind === 'pop' && !enabled) waiters.wakeAll()
    if (source === 'api')
      hints.publish({ type: kind === 'push' ? 'MAINTENANCE_MODE_SET' : 'POP_MAINTENANCE_MODE_SET', enabled })
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
  // Transactions and stream sink pushes never overtake push-maintenance or the spool (docs/semantics.md,
  // "Transactions").
  const guards = {
    pushMaintenance: () => maintenance.push,
    partitionHasSpooled: (tenant: string, queue: string, partition: string) =>
      ingest.partitionHasSpooled(tenant, queue, partition),
  }
  const state = { phase: 'starting' as BrokerPhase, startedAt: Date.now() }
  const observed = createObservability({
    pool,
    events,
    waiters,
    serverId: config.serverId,
    version: BROKER_VERSION,
    startedAt: state.startedAt,
    checkDatabase: () => health.check(),
    metricsMaxQueues: config.log.metricsMaxQueues,
    // Two tenants may each own `orders`: with tenancy on, every queue label gets its tenant beside it.
    tenantLabels: config.tenancy.header !== undefined,
  })
  const observability = {
    ...observed,
    ...createObservabilityJobs(observed, {
      pool,
      waiters,
      serverId: config.serverId,
      statsIntervalMs: config.jobs.statsIntervalMs,
      metricsAggregateIntervalSeconds: config.jobs.metricsAggregateIntervalSeconds,
      logStatsIntervalMs: config.log.statsIntervalMs,
      log,
    }),
  }
  // Spool and maintenance gauges read the live state at every scrape.
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
    pop: new PopEngine(
      pool,
      registry,
      waiters,
      events,
      maintenance,
      new PopDecryption(pool, cipher, events, reportError),
    ),
    transactions: new TransactionEngine(pool, push, ack, wakeListener, guards),
    streams: new StreamsEngine({ pool, push, ack, registry, wake, guards }),
    health,
    events,
    ingest,
    maintenance,
    spool: options.spool,
    dbHealth: options.dbHealth,
    hints,
    hintEffects: new HintEffects({ waiters, maintenance, registry }),
    hintChannel: options.hints,
    cipher,
    observability,
    state,
    wake,
    reportError,
  }
}
