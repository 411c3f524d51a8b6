/**
 * An in-process gateway (`queenctl proxy serve`) on a database of its own, created empty on the test server, in
 * front of the brokers given: real PostgreSQL, real HTTP on a port-0 listener.
 */
import type { FastifyInstance } from 'fastify'
import pg from 'pg'
import type { GatewayConfig } from '../../src/gateway/config/gateway-config.js'
import { resolveGatewayConfig } from '../../src/gateway/config/resolve.js'
import { buildGateway, closeGateway } from '../../src/gateway/gateway.js'
import { createLogger } from '../../src/platform/log/logger.js'
import { createEmptyDatabase, dropDatabase } from './cli-harness.js'
import { databaseConnection } from './database.js'
import { trackResource } from './resources.js'

export interface TestGateway {
  url: string
  app: FastifyInstance
  config: GatewayConfig
  /** A pool on the gateway's database (management calls and row assertions). */
  db: pg.Pool
  database: string
  close(options?: { keepDatabase?: boolean }): Promise<void>
}

/** Starts a gateway; `env` holds PROXY_* variables parsed as production parses them. */
export async function startTestGateway(options: {
  upstreams: readonly string[]
  env?: Record<string, string>
  database?: string
  label?: string
  /** A port to listen on (a URL that must be known before it starts, e.g. an OpenID callback); default: any free one. */
  port?: number
}): Promise<TestGateway> {
  const database = options.database ?? (await createEmptyDatabase(options.label ?? 'gateway'))
  const { config } = resolveGatewayConfig({
    env: { PROXY_UPSTREAMS: options.upstreams.join(','), PROXY_HEALTH_INTERVAL_MS: '200', ...options.env },
  })
  const log = createLogger({
    level: process.env.TEST_LOG_LEVEL ?? 'error',
    json: false,
    serverId: 'test-gateway',
    destination: process.stderr,
  })
  const connection = databaseConnection(database)
  const app = await buildGateway(config, { log, connection })
  await app.listen({ host: '127.0.0.1', port: options.port ?? 0 })
  const address = app.server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  const db = new pg.Pool({ ...connection, max: 4 })
  db.on('error', () => undefined)
  const untrack = trackResource(`gateway on ${database}`)
  return {
    url: `http://127.0.0.1:${port}`,
    app,
    config,
    db,
    database,
    async close(closeOptions = {}) {
      await closeGateway(app, 10_000)
      await db.end()
      if (!closeOptions.keepDatabase && options.database === undefined) await dropDatabase(database)
      untrack()
    },
  }
}
