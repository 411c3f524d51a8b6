/**
 * An in-process broker on a test database: real PostgreSQL, real HTTP on a port-0 listener. Each call
 * gets its own database cloned from the schema template unless one is passed in.
 */
import type { FastifyInstance } from 'fastify'
import pg from 'pg'
import { buildApp } from '../../src/broker/app.js'
import { HealthProbe } from '../../src/broker/db/health-probe.js'
import { createServices, type BrokerServices, type ServicesConfig } from '../../src/broker/services.js'
import { createLogger } from '../../src/broker/observe/logger.js'
import { resolveBrokerConfig } from '../../src/broker/config/resolve.js'
import { createDurability, openSpool } from '../../src/broker/durability.js'
import { mkdtemp, rm } from 'node:fs/promises'
import type { Logger } from 'pino'
import { createTestDatabase, databaseConnection, dropTestDatabase } from './database.js'
import { trackResource } from './resources.js'

/** A running test broker. */
export interface TestBroker {
  url: string
  app: FastifyInstance
  services: BrokerServices
  /** A pool on the broker's database, for assertions on rows. */
  db: pg.Pool
  database: string
  close(options?: { keepDatabase?: boolean }): Promise<void>
}

/** Defaults of the request path for tests (production reads them from the environment). */
export function testServicesConfig(overrides: Partial<ServicesConfig> = {}): ServicesConfig {
  return {
    serverId: 'test-broker',
    version: '0.0.0-test',
    maxBodyBytes: 32 * 1024 * 1024,
    maxBatchItems: 10_000,
    maxPopBatch: 10_000,
    defaultTimeoutMs: 30_000,
    defaultBatchSize: 1,
    defaultSubscriptionMode: 'all',
    stateRefreshMs: 5000,
    poolSize: 10,
    popWait: { initialIntervalMs: 100, backoffThreshold: 3, backoffMultiplier: 2, maxIntervalMs: 1000 },
    statsIntervalMs: 10_000,
    metricsAggregateIntervalSeconds: 60,
    logStatsIntervalMs: 30_000,
    metricsMaxQueues: 1000,
    ...overrides,
  }
}

/** A pop-wait backoff whose re-check timer is a minute: only wake-ups answer a parked pop within a test. */
export const WAKE_ONLY_POP_WAIT = {
  initialIntervalMs: 60_000,
  backoffThreshold: 3,
  backoffMultiplier: 2,
  maxIntervalMs: 60_000,
}

/** Starts a broker listening on 127.0.0.1 with an ephemeral port. */
export async function startTestBroker(
  options: {
    database?: string
    config?: Partial<ServicesConfig>
    label?: string
    /**
     * Run with the durability parts of a real broker (spool in a temp dir, database health, hint channel,
     * maintenance refresh, replay), configured from these environment variables on top of test defaults.
     */
    durable?: Record<string, string>
  } = {},
): Promise<TestBroker> {
  const database = options.database ?? (await createTestDatabase(options.label ?? 'broker'))
  const connection = databaseConnection(database)
  const config = testServicesConfig(options.config)
  const pool = new pg.Pool({ ...connection, max: config.poolSize })
  // The test database is dropped WITH (FORCE) at close: a connection cut then must not crash the run.
  pool.on('error', () => undefined)
  const health = new HealthProbe(connection)
  // Errors (5xx, background failures) reach the test output; TEST_LOG_LEVEL=debug shows more.
  const log = createLogger({
    level: process.env.TEST_LOG_LEVEL ?? 'error',
    json: false,
    serverId: 'test',
    destination: process.stderr,
  })
  const durable = options.durable ? await openTestDurability(options.durable, pool, health, connection, log) : undefined
  const services = createServices(
    config,
    pool,
    health,
    (error) => {
      throw error
    },
    {
      log,
      ...(durable
        ? { spool: durable.spool, dbHealth: durable.durability.dbHealth, hints: durable.durability.hints }
        : {}),
    },
  )
  services.state.phase = 'ready'
  if (durable) {
    durable.durability.attach(services)
    await services.maintenance.load()
    await durable.durability.hints.start()
    for (const job of durable.durability.jobs) job.start()
  }
  const app = await buildApp(services, { loggerInstance: log })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const address = app.server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  const db = new pg.Pool({ ...connection, max: 4 })
  db.on('error', () => undefined)
  const untrack = trackResource(`broker on ${database}`)
  return {
    url: `http://127.0.0.1:${port}`,
    app,
    services,
    db,
    database,
    async close(closeOptions = {}) {
      services.waiters.shutdown()
      await app.close()
      if (durable) {
        await Promise.all(durable.durability.jobs.map((job) => job.stop()))
        await durable.durability.close()
        await durable.spool.close()
        await rm(durable.dir, { recursive: true, force: true })
      }
      // pool.end() resolves before the sockets close; dropping the database right after may kill a backend
      // whose connection is still closing, which the pool would re-emit as an unhandled 'error'.
      pool.on('error', () => undefined)
      await pool.end()
      await health.close()
      await db.end()
      if (!closeOptions.keepDatabase && options.database === undefined) await dropTestDatabase(database)
      untrack()
    },
  }
}

async function openTestDurability(
  env: Record<string, string>,
  pool: pg.Pool,
  probe: HealthProbe,
  connection: pg.ClientConfig,
  log: Logger,
) {
  const dir = await mkdtemp('/tmp/queenctl-test-spool-')
  const { config } = resolveBrokerConfig({
    env: { FILE_BUFFER_DIR: dir, FILE_BUFFER_FLUSH_MS: '50', QUEEN_STATE_REFRESH_MS: '1000', ...env },
  })
  const spool = await openSpool(config, log)
  const durability = createDurability(
    config,
    { spool, pool, probe, listenConfig: connection, databaseUp: true },
    () => true,
    log,
  )
  return { dir, spool, durability }
}

/** JSON over real HTTP: returns status, headers and parsed body. */
export async function http(
  broker: { url: string },
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const init: RequestInit = { method, headers: { ...headers } }
  if (body !== undefined) {
    init.body = typeof body === 'string' ? body : JSON.stringify(body)
    ;(init.headers as Record<string, string>)['content-type'] ??= 'application/json'
  }
  const response = await fetch(`${broker.url}${path}`, init)
  const text = await response.text()
  let parsed: unknown = text
  try {
    parsed = text.length > 0 ? JSON.parse(text) : undefined
  } catch {
    // not JSON; keep the text
  }
  return { status: response.status, body: parsed, headers: response.headers }
}
