/**
 * A broker is one fastify app whose parts are plugins (src/broker/parts/), registered in boot order and
 * closed in reverse by `app.close()`:
 *
 *   auth -> spool -> database -> connectivity -> engines -> mesh -> replay -> jobs -> http
 *
 * A new subsystem is a part: a folder of its own and one `register` line here, in the place its
 * dependencies put it. `serve` and the test brokers build the same app; tests leave out durability
 * (spool, connectivity, replay) and the jobs, and hand in their own database.
 */
import type { FastifyInstance } from 'fastify'
import type pg from 'pg'
import type { Logger } from 'pino'
import httpPart, { createBrokerApp } from './app.js'
import type { BrokerConfig } from './config/broker-config.js'
import authPart from './parts/auth-part.js'
import connectivityPart from './parts/connectivity-part.js'
import databasePart from './parts/database-part.js'
import enginesPart from './parts/engines-part.js'
import jobsPart from './parts/jobs-part.js'
import meshPart, { type MeshPartOptions } from './parts/mesh-part.js'
import replayPart from './parts/replay-part.js'
import spoolPart from './parts/spool-part.js'

/** Which parts a broker has, and what it runs on. */
export interface BrokerOptions {
  log: Logger
  /** A database to use as it is (schema installed); otherwise the embedded or PG_HOST server. */
  connection?: pg.ClientConfig
  /** Spool, database health, hint channel, replay and the maintenance-flag refresh; default true. */
  durability?: boolean
  /** Lease reclaim, observability and retention jobs; default true. */
  jobs?: boolean
  /** Shorter mesh clocks (tests of the protocol's deadlines). */
  meshTiming?: MeshPartOptions['timing']
  /** The dashboard build to serve; default dist/dashboard of the package. */
  dashboardDir?: string
}

/** Builds and boots a broker (not listening yet). A part that fails to start closes the ones before it. */
export async function buildBroker(config: BrokerConfig, options: BrokerOptions): Promise<FastifyInstance> {
  const { log } = options
  const durability = options.durability ?? true
  const app = createBrokerApp(config, log.child({ component: 'http' }))
  // First: a token key the broker cannot use stops the boot before anything starts.
  void app.register(authPart, { config, log })
  void app.register(spoolPart, { config, log, enabled: durability })
  void app.register(databasePart, { config, log, connection: options.connection })
  void app.register(connectivityPart, { log, enabled: durability })
  void app.register(enginesPart, { config, log })
  void app.register(meshPart, { config, log, timing: options.meshTiming })
  if (durability) void app.register(replayPart, { config, log })
  if (options.jobs ?? true) void app.register(jobsPart, { config, log })
  void app.register(httpPart, { dashboard: config.dashboard, dashboardDir: options.dashboardDir })
  try {
    await app.ready()
  } catch (error) {
    await app.close().catch(() => undefined)
    throw error
  }
  return app
}

/**
 * Drains and closes a broker: parked long-polls are answered, the listener stops taking requests, and
 * every part closes in reverse boot order. Connections still open after `timeoutMs` are cut ('timeout').
 */
export async function closeBroker(app: FastifyInstance, timeoutMs: number): Promise<'closed' | 'timeout'> {
  const closed = app.close().then(() => 'closed' as const)
  app.server.closeIdleConnections()
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs).unref()
  })
  const first = await Promise.race([closed, timeout])
  clearTimeout(timer)
  if (first === 'timeout') app.server.closeAllConnections()
  await closed
  return first
}
