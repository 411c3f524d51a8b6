/**
 * Operator routes (docs/http-api.md, "System" and "Internal routes"): maintenance flags, spool status, shared state,
 * mesh view, and the internal notify hook. All admin class.
 */
import type { FastifyInstance } from 'fastify'
import { DatabaseUnavailableError } from '../../../platform/postgres/pg-errors.js'
import { BrokerError, validationError } from '../../errors.js'
import type { BrokerServices } from '../../services.js'
import { IGNORE_BODY } from '../body-parsing.js'
import { asObject, checkName, checkQueueName } from '../validation/rules.js'
import { tenantOf } from '../tenant.js'
import type { BuffersAnswer, MaintenanceAnswer, MaintenanceSetAnswer, MeshAnswer, PopMaintenanceAnswer } from '../../../wire/index.js'

function spoolView(broker: BrokerServices) {
  const spool = broker.spool
  return {
    state: spool?.state ?? 'unwritable',
    records: spool?.size.records ?? 0,
    bytes: spool?.size.bytes ?? 0,
    quarantined: spool?.counters.quarantined ?? 0,
  }
}

function enabledFlag(body: unknown): boolean {
  const enabled = asObject(body).enabled
  if (typeof enabled !== 'boolean') throw validationError('enabled (boolean) is required')
  return enabled
}

async function persist(broker: BrokerServices, kind: 'push' | 'pop', enabled: boolean): Promise<void> {
  try {
    await broker.maintenance.set(kind, enabled)
  } catch (error) {
    if (error instanceof DatabaseUnavailableError) {
      throw new BrokerError('databaseUnavailable', 'cannot persist maintenance mode: database unavailable')
    }
    throw error
  }
}

function sharedState(app: FastifyInstance) {
  const broker = app.broker
  const health = app.mesh?.health()
  return {
    enabled: app.mesh !== undefined,
    running: app.mesh?.listening ?? false,
    server_id: broker.config.serverId,
    transport: 'tcp-mesh',
    queue_config_cache: { size: 0, hits: 0, misses: 0, hit_rate: 0 },
    server_health: health ?? {
      servers_tracked: 0,
      servers_alive: 0,
      servers_dead: 0,
      heartbeats_received: 0,
      restarts_detected: 0,
    },
    maintenance_mode: broker.maintenance.push,
    pop_maintenance_mode: broker.maintenance.pop,
  }
}

export function registerSystemRoutes(app: FastifyInstance): void {
  app.get('/api/v1/system/maintenance', (): MaintenanceAnswer => {
    const broker = app.broker
    const spool = spoolView(broker)
    return {
      maintenanceMode: broker.maintenance.push,
      popMaintenanceMode: broker.maintenance.pop,
      bufferedMessages: spool.records,
      bufferHealthy: spool.state !== 'full' && spool.state !== 'unwritable',
      bufferStats: {
        pendingCount: spool.records,
        failedCount: spool.quarantined,
        dbHealthy: broker.dbHealth?.healthy ?? true,
        failedFiles: {
          count: spool.quarantined,
          totalBytes: 0,
          totalMB: 0,
          failoverCount: broker.spool?.counters.written ?? 0,
          qos0Count: 0,
        },
      },
    }
  })

  app.post('/api/v1/system/maintenance', async (request): Promise<MaintenanceSetAnswer> => {
    const broker = app.broker
    const enabled = enabledFlag(request.body)
    await persist(broker, 'push', enabled)
    const spool = spoolView(broker)
    return {
      maintenanceMode: broker.maintenance.push,
      bufferedMessages: spool.records,
      bufferHealthy: spool.state !== 'full' && spool.state !== 'unwritable',
      message: enabled
        ? 'Push maintenance is on: pushes are written to the spool and answered buffered'
        : 'Push maintenance is off: spooled pushes are being replayed',
    }
  })

  app.get('/api/v1/system/maintenance/pop', (): PopMaintenanceAnswer => ({
    popMaintenanceMode: app.broker.maintenance.pop,
    message: app.broker.maintenance.pop ? 'Pop maintenance is on: pops answer 204' : 'Pop maintenance is off',
  }))

  app.post('/api/v1/system/maintenance/pop', async (request): Promise<PopMaintenanceAnswer> => {
    const enabled = enabledFlag(request.body)
    await persist(app.broker, 'pop', enabled)
    return {
      popMaintenanceMode: app.broker.maintenance.pop,
      message: enabled ? 'Pop maintenance is on: pops answer 204' : 'Pop maintenance is off',
    }
  })

  app.get('/api/v1/status/buffers', (): BuffersAnswer => {
    const broker = app.broker
    const spool = spoolView(broker)
    return {
      pending: spool.records,
      failed: spool.quarantined,
      dbHealthy: broker.dbHealth?.healthy ?? true,
      worker: broker.config.serverId,
      bytes: spool.bytes,
      segments: broker.spool ? broker.spool.segmentCount : 0,
      state: spool.state,
    }
  })

  app.get('/api/v1/system/shared-state', () => sharedState(app))
  app.get('/internal/api/shared-state/stats', () => sharedState(app))
  app.get('/internal/api/inter-instance/stats', () => sharedState(app))

  app.post('/internal/api/notify', (request) => {
    const body = asObject(request.body)
    if (body.queue === undefined || body.queue === null || body.queue === '') throw validationError('queue is required')
    const queue = checkQueueName(body.queue, 'queue')
    const partition =
      body.partition === undefined || body.partition === null ? null : checkName(body.partition, 'partition')
    app.broker.waiters.wake(tenantOf(request), queue, partition, 'local')
    app.broker.hints.publish({ type: 'POP_WAKE', wakes: [{ tenant: tenantOf(request), queue, partition }] })
    return { status: 'ok' }
  })

  // Fault injection for the reliability tests (docs/reliability.md, "The ledger"), only with QUEEN_TEST_HOOKS=true.
  if (app.broker.config.testHooks) {
    app.post('/internal/api/test-hooks', (request) => {
      const body = asObject(request.body)
      const spool = app.broker.spool
      if ('spool.failAfterBytes' in body && spool) {
        const value = body['spool.failAfterBytes']
        if (value !== null && (typeof value !== 'number' || !Number.isInteger(value) || value < 0)) {
          throw validationError('spool.failAfterBytes: must be a non-negative integer or null')
        }
        spool.hooks.failAfterBytes = value === null ? undefined : value
      }
      const channel = app.broker.hintChannel
      if ('notify.disabled' in body && channel) channel.disabled = body['notify.disabled'] === true
      return {
        hooks: {
          'spool.failAfterBytes': spool?.hooks.failAfterBytes ?? null,
          'notify.disabled': channel?.disabled ?? false,
        },
      }
    })
  }

  app.get('/api/v1/system/mesh', IGNORE_BODY, () => meshView(app))
}

const isoOrNull = (time: number | null) => (time === null || time === 0 ? null : new Date(time).toISOString())

/** GET /api/v1/system/mesh (docs/http-api.md, "System"): this broker's view of every configured peer. */
function meshView(app: FastifyInstance): MeshAnswer {
  const { mesh, broker } = app
  const config = broker.config
  if (!mesh) {
    return {
      serverId: config.serverId,
      port: 0,
      auth: 'off',
      listening: false,
      peersConfigured: 0,
      peersConnected: 0,
      peers: [],
      inbound: [],
    }
  }
  const peers = mesh.peerViews()
  return {
    serverId: config.serverId,
    port: mesh.port,
    auth: mesh.auth,
    listening: mesh.listening,
    peersConfigured: peers.length,
    peersConnected: mesh.peersConnected,
    peers: peers.map((peer) => ({
      ...peer,
      since: isoOrNull(peer.since),
      lastHeartbeatAt: isoOrNull(peer.lastHeartbeatAt),
    })),
    inbound: mesh.inboundViews().map((inbound) => ({ ...inbound, since: isoOrNull(inbound.since) })),
  }
}
