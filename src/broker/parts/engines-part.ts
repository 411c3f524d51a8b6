/**
 * The engines part: push, pop, ack, transactions, streams, the queue registry, maintenance flags and
 * observability, wired around the database (services.ts), decorated as `app.broker` for the routes. The
 * drain starts here: before the listener closes, the broker reports `draining` and answers every parked
 * long-poll (docs/operations.md, "Shutdown").
 */
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { Logger } from 'pino'
import { createServices, type BrokerServices, type EngineConfig } from '../services.js'

declare module 'fastify' {
  interface FastifyInstance {
    broker: BrokerServices
  }
}

async function enginesPart(app: FastifyInstance, { config, log }: { config: EngineConfig; log: Logger }) {
  const services = createServices(
    config,
    app.database.pool,
    app.database.health,
    (error, context) => log.error({ err: error, context }, 'background error'),
    { log, spool: app.spool, dbHealth: app.connectivity?.dbHealth, hints: app.connectivity?.hints },
  )
  app.decorate('broker', services)
  await app.database.whenSchemaReady(() => {
    services.state.phase = 'ready'
  })
  app.addHook('preClose', async () => {
    services.state.phase = 'draining'
    services.waiters.shutdown()
    // Let the parked answers (sent with Connection: close) reach their sockets before the listener closes.
    await new Promise((resolve) => setImmediate(resolve))
  })
  app.addHook('onClose', () => services.observability.close())
}

export default fp(enginesPart, { name: 'queen-engines', dependencies: ['queen-database'] })
