/**
 * An in-process broker on a test database: real PostgreSQL, real HTTP on a port-0 listener. Each call
 * gets its own database cloned from the schema template unless one is passed in.
 */
import type { FastifyInstance } from 'fastify'
import { mkdtemp, rm } from 'node:fs/promises'
import pg from 'pg'
import { buildBroker, closeBroker, type BrokerOptions } from '../../src/broker/broker.js'
import type { BrokerConfig } from '../../src/broker/config/broker-config.js'
import { resolveBrokerConfig } from '../../src/broker/config/resolve.js'
import { createLogger } from '../../src/platform/log/logger.js'
import type { BrokerServices } from '../../src/broker/services.js'
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

/** Settings of a test broker beyond the variable table's defaults (production reads them from the environment). */
const TEST_ENV = { QUEEN_SERVER_ID: 'test-broker', DB_POOL_SIZE: '10' }

type Overrides<T> = { [K in keyof T]?: T[K] extends object ? Overrides<T[K]> : T[K] }

/**
 * The configuration of a test broker: the variable table's defaults, TEST_ENV and `env`, parsed as
 * production parses them; `overrides` then replace fields directly, for values no variable allows
 * (intervals of a few ms).
 */
export function testBrokerConfig(
  env: Record<string, string> = {},
  overrides: Overrides<BrokerConfig> = {},
): BrokerConfig {
  const { config } = resolveBrokerConfig({ env: { ...TEST_ENV, ...env } })
  return merge(config, overrides)
}

function merge<T>(base: T, overrides: Overrides<T>): T {
  const out: Record<string, unknown> = { ...(base as Record<string, unknown>) }
  for (const [key, value] of Object.entries(overrides)) {
    const current = out[key]
    out[key] =
      value !== null && typeof value === 'object' && !Array.isArray(value) && typeof current === 'object'
        ? merge(current, value as Overrides<typeof current>)
        : value
  }
  return out as T
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
    /** Environment variables, parsed as production parses them, under `config` (see {@link testBrokerConfig}). */
    env?: Record<string, string>
    /** Fields of the configuration to replace (see {@link testBrokerConfig}). */
    config?: Overrides<BrokerConfig>
    label?: string
    /**
     * Run with the durability parts of a real broker (spool in a temp dir, database health, hint channel,
     * maintenance refresh, replay), configured from these environment variables on top of test defaults.
     */
    durable?: Record<string, string>
    /** Shorter mesh clocks (protocol deadline tests). */
    meshTiming?: BrokerOptions['meshTiming']
    /** The dashboard build to serve; default the repository's dist/dashboard (`npm run build`). */
    dashboardDir?: string
  } = {},
): Promise<TestBroker> {
  const database = options.database ?? (await createTestDatabase(options.label ?? 'broker'))
  const connection = databaseConnection(database)
  const spoolDir = options.durable ? await mkdtemp('/tmp/queenctl-test-spool-') : undefined
  const env = spoolDir
    ? {
        FILE_BUFFER_DIR: spoolDir,
        FILE_BUFFER_FLUSH_MS: '50',
        QUEEN_STATE_REFRESH_MS: '1000',
        ...options.env,
        ...options.durable,
      }
    : { ...options.env }
  const config = testBrokerConfig(env, options.config)
  // Errors (5xx, background failures) reach the test output; TEST_LOG_LEVEL=debug shows more.
  const log = createLogger({
    level: process.env.TEST_LOG_LEVEL ?? 'error',
    json: false,
    serverId: 'test',
    destination: process.stderr,
  })
  const app = await buildBroker(config, {
    log,
    connection,
    durability: spoolDir !== undefined,
    jobs: false,
    meshTiming: options.meshTiming,
    dashboardDir: options.dashboardDir,
  })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const address = app.server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  const db = new pg.Pool({ ...connection, max: 4 })
  db.on('error', () => undefined)
  const untrack = trackResource(`broker on ${database}`)
  return {
    url: `http://127.0.0.1:${port}`,
    app,
    services: app.broker,
    db,
    database,
    async close(closeOptions = {}) {
      await closeBroker(app, 30_000)
      if (spoolDir) await rm(spoolDir, { recursive: true, force: true })
      await db.end()
      if (!closeOptions.keepDatabase && options.database === undefined) await dropTestDatabase(database)
      untrack()
    },
  }
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
