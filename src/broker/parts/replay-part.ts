/**
 * The replay part (docs/operations.md, "Durability and rotation", "Maintenance mode" and "Hints through PostgreSQL"):
 * once the schema is ready it starts the hint channel (hints re-check parked pops, apply maintenance flags, drop cached
 * queue options), re-reads the maintenance flags periodically, and replays the spool into PostgreSQL whenever the
 * database is up and push-maintenance is off. Registered only with durability, after the engines.
 */
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { Logger } from 'pino'
import type { BrokerConfig } from '../config/broker-config.js'
import type { Hint } from '../db/hint-channel.js'
import { BackgroundLoop } from '../../platform/jobs/background-loop.js'
import { SpoolReplayer } from '../spool/spool-replayer.js'

type ReplayConfig = Pick<BrokerConfig, 'spool' | 'jobs'>

async function replayPart(app: FastifyInstance, { config, log }: { config: ReplayConfig; log: Logger }) {
  const services = app.broker
  const { spool, connectivity } = app
  if (!spool || !connectivity) throw new Error('the replay part needs the spool and connectivity parts')
  const { dbHealth, hints } = connectivity

  const onHint = (hint: Hint, origin: string) => services.hintEffects.apply(hint, origin, 'pg_notify')
  const onReconnect = () => {
    services.registry.invalidate()
    services.maintenance.load('database').catch(() => undefined)
  }

  let stopping = false
  const canReplay = () => !stopping && app.database.schemaReady && dbHealth.healthy && !services.maintenance.push
  const replayer = new SpoolReplayer(
    spool,
    (tenant, records) => services.push.replay(tenant, records),
    { maxBatch: config.spool.maxBatch, canReplay, onUnavailable: (error) => dbHealth.markDown(error) },
    log,
  )
  const replayLoop = new BackgroundLoop('spool-replay', config.spool.flushMs, () => replayer.runOnce(), log)
  const stateRefresh = new BackgroundLoop(
    'state-refresh',
    config.jobs.stateRefreshMs,
    async () => {
      if (dbHealth.healthy) await services.maintenance.load('database')
    },
    log,
  )
  const kickReplay = () => {
    replayer.runOnce().catch((error: unknown) => log.error({ err: error }, 'spool replay failed'))
  }
  dbHealth.whenUp(() => {
    services.maintenance.load('database').catch(() => undefined)
    replayer.resume()
    kickReplay()
  })
  services.maintenance.onChange((kind, enabled) => {
    if (kind === 'push' && !enabled) kickReplay()
  })

  await app.database.whenSchemaReady(async () => {
    await services.maintenance
      .load('database')
      .catch((error: unknown) => log.warn({ err: error }, 'maintenance flags not read'))
    await hints.start({ onHint, onReconnect })
    replayLoop.start()
    stateRefresh.start()
    kickReplay()
  })

  // Replay stops after its current batch (canReplay turns false between batches).
  app.addHook('onClose', async () => {
    stopping = true
    await replayLoop.stop()
    await stateRefresh.stop()
    await replayer.whenIdle()
  })
}

export default fp(replayPart, {
  name: 'queen-replay',
  dependencies: ['queen-spool', 'queen-connectivity', 'queen-engines'],
})
