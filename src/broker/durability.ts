/**
 * The parts that let a broker ride out a PostgreSQL outage and converge with its replicas (operations.md
 * sections 7, 8 and 11.8): the spool and its replayer, the database health probe, the hint channel, and the
 * maintenance flags' refresh. `server.ts` opens them in boot order and closes them at shutdown.
 */
import type pg from 'pg'
import type { Logger } from 'pino'
import type { BrokerConfig } from './config/broker-config.js'
import { HintChannel, type Hint } from './db/hint-channel.js'
import type { HealthProbe } from './db/health-probe.js'
import { DbHealth } from './engine/db-health.js'
import { BackgroundLoop, type BackgroundService } from './jobs/background-loop.js'
import type { BrokerServices } from './services.js'
import { SpoolReplayer } from './spool/spool-replayer.js'
import { Spool } from './spool/spool.js'

/** The spool record size bound beyond the body limit (operations.md 7.2). */
const RECORD_OVERHEAD_BYTES = 64 * 1024

/** Opens the spool (boot step 3): directory or fallback, recovery, pending counts. */
export async function openSpool(config: BrokerConfig, log: Logger): Promise<Spool> {
  return Spool.open(
    {
      dir: config.spool.dir,
      serverId: config.serverId,
      eventsPerFile: config.spool.eventsPerFile,
      flushMs: config.spool.flushMs,
      maxBytes: config.spool.maxBytes,
      maxRecordBytes: config.maxBodyBytes + RECORD_OVERHEAD_BYTES,
    },
    log.child({ component: 'spool' }),
  )
}

/** What the rest of the boot needs from this module. */
export interface Durability {
  dbHealth: DbHealth
  hints: HintChannel
  /** Background services to start once the schema is ready. */
  jobs: BackgroundService[]
  /** Connects the parts to the broker's services (after createServices). */
  attach(services: BrokerServices): void
  /** Replays now if possible (maintenance off, database back). */
  kickReplay(): void
  close(): Promise<void>
}

/** Creates the health tracker, hint channel, replayer and state refresh around a pool. */
export function createDurability(
  config: BrokerConfig,
  parts: { spool: Spool; pool: pg.Pool; probe: HealthProbe; listenConfig: pg.ClientConfig; databaseUp: boolean },
  isSchemaReady: () => boolean,
  log: Logger,
): Durability {
  const dbHealth = new DbHealth(parts.probe, log.child({ component: 'database' }), parts.databaseUp)
  let services: BrokerServices | undefined
  const onHint = (hint: Hint) => {
    if (!services) return
    switch (hint.type) {
      case 'POP_WAKE':
        for (const wake of hint.wakes) services.waiters.wake(wake.tenant, wake.queue, wake.partition, 'pg_notify')
        break
      case 'MAINTENANCE_MODE_SET':
      case 'POP_MAINTENANCE_MODE_SET': {
        const kind = hint.type === 'MAINTENANCE_MODE_SET' ? 'push' : 'pop'
        services.maintenance.apply(kind, hint.enabled, 'database')
        // PostgreSQL wins on conflict: confirm from it.
        services.maintenance.load('database').catch(() => undefined)
        break
      }
      case 'CONFIG_INVALIDATE':
        services.registry.invalidate(hint.queue === null ? undefined : hint.tenant, hint.queue ?? undefined)
        break
    }
  }
  const hints = new HintChannel(
    parts.listenConfig,
    parts.pool,
    {
      onHint,
      onReconnect: () => {
        services?.registry.invalidate()
        services?.maintenance.load('database').catch(() => undefined)
      },
    },
    log,
  )

  let stopping = false
  const canReplay = () =>
    !stopping && isSchemaReady() && dbHealth.healthy && services !== undefined && !services.maintenance.push
  const replayer = new SpoolReplayer(
    parts.spool,
    (tenant, records) => services!.push.replay(tenant, records),
    { maxBatch: config.spool.maxBatch, canReplay },
    log,
  )
  const replayLoop = new BackgroundLoop('spool-replay', config.spool.flushMs, () => replayer.runOnce(), log)
  const stateRefresh = new BackgroundLoop(
    'state-refresh',
    config.jobs.stateRefreshMs,
    async () => {
      if (dbHealth.healthy && services) await services.maintenance.load('database')
    },
    log,
  )
  const kickReplay = () => {
    replayer.runOnce().catch((error: unknown) => log.error({ err: error }, 'spool replay failed'))
  }
  dbHealth.whenUp(() => {
    services?.maintenance.load('database').catch(() => undefined)
    kickReplay()
  })

  return {
    dbHealth,
    hints,
    jobs: [replayLoop, stateRefresh],
    attach(attached) {
      services = attached
      attached.maintenance.onChange((kind, enabled, source) => {
        if (source === 'api') {
          hints.publish({ type: kind === 'push' ? 'MAINTENANCE_MODE_SET' : 'POP_MAINTENANCE_MODE_SET', enabled })
        }
        if (kind === 'push' && !enabled) kickReplay()
      })
    },
    kickReplay,
    async close() {
      // Replay stops after its current batch (canReplay turns false between batches).
      stopping = true
      dbHealth.stop()
      await replayLoop.stop()
      await stateRefresh.stop()
      await replayer.whenIdle()
      await hints.close()
    },
  }
}
