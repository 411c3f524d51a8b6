/**
 * The connectivity part (docs/operations.md, "Maintenance mode" and "Hints through PostgreSQL"): PostgreSQL
 * reachability as pushes see it (DbHealth, which sends them to the spool during an outage; the stall watchdog, which
 * fails statements stuck on a silent network) and the hint channel to the other replicas. The engines are built on both; the replay part starts them once the schema is ready. Decorates
 * `app.connectivity` (undefined without durability).
 */
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { Logger } from 'pino'
import { HintChannel } from '../db/hint-channel.js'
import { DbHealth } from '../engine/db-health.js'
import { StallWatchdog } from '../engine/stall-watchdog.js'

/** What the connectivity part gives the others. */
export interface Connectivity {
  dbHealth: DbHealth
  hints: HintChannel
}

declare module 'fastify' {
  interface FastifyInstance {
    connectivity: Connectivity | undefined
  }
}

function connectivityPart(app: FastifyInstance, { log, enabled }: { log: Logger; enabled: boolean }): Promise<void> {
  if (!enabled) {
    app.decorate('connectivity', undefined)
    return Promise.resolve()
  }
  const { health, pool, connection, schemaReady } = app.database
  const dbHealth = new DbHealth(health, log.child({ component: 'database' }), schemaReady)
  const hints = new HintChannel(connection, pool, log)
  const watchdog = new StallWatchdog({
    pool,
    probe: health,
    markDown: (error) => dbHealth.markDown(error),
    log: log.child({ component: 'database' }),
  })
  app.decorate('connectivity', { dbHealth, hints })
  app.addHook('onClose', async () => {
    watchdog.stop()
    dbHealth.stop()
    await hints.close()
  })
  return Promise.resolve()
}

export default fp(connectivityPart, { name: 'queen-connectivity', dependencies: ['queen-database'] })
