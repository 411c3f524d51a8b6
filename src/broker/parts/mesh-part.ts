/**
 * The mesh part (docs/operations.md, "The mesh"): with peers configured it binds the mesh port, dials every peer, adds
 * the mesh to the paths this broker's hints take and applies the hints peers send; without peers it binds
 * nothing and dials nothing. Either way it logs the `mesh` boot line. Decorates `app.mesh` (undefined
 * without peers). Registered after the engines (hints need the waiters, flags and registry). The mesh
 * modules (peers.ts, mesh.ts) are imported only with peers: a broker without them never loads them (issue 22, broker memory).
 */
import { randomUUID } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { Logger } from 'pino'
import type { BrokerConfig } from '../config/broker-config.js'
import type { Mesh, MeshTiming, PeerStats } from '../mesh/mesh.js'
import { meshWanted } from '../mesh/mesh-wanted.js'
import type { BrokerServices } from '../services.js'
import { BROKER_VERSION } from '../version.js'
import { BootError } from './boot-error.js'

declare module 'fastify' {
  interface FastifyInstance {
    mesh: Mesh | undefined
  }
}

type MeshPartConfig = Pick<BrokerConfig, 'mesh' | 'host' | 'serverId'>

/** Options of the part; `timing` lets tests shorten the protocol's clocks. */
export interface MeshPartOptions {
  config: MeshPartConfig
  log: Logger
  timing?: Partial<MeshTiming>
}

async function meshPart(app: FastifyInstance, { config, log, timing }: MeshPartOptions): Promise<void> {
  const auth = config.mesh.secret === undefined ? 'off' : 'hmac'
  if (!meshWanted(config)) {
    app.decorate('mesh', undefined)
    log.info({ peers: 0, auth, listening: 'no', server_id: config.serverId }, 'mesh')
    return
  }
  const { meshBootProblems, parsePeers } = await import('../mesh/peers.js')
  const problems = meshBootProblems(config)
  if (problems.length > 0) throw new BootError(problems.join('\n'), 1)
  const services = app.broker
  const { Mesh } = await import('../mesh/mesh.js')
  const mesh = new Mesh({
    serverId: config.serverId,
    // The PostgreSQL channel's id: a wake heard by both paths is recognised as one.
    instance: app.connectivity?.hints.instance ?? randomUUID(),
    host: config.host,
    port: config.mesh.port,
    peers: parsePeers(config.mesh.peers, config.mesh.port).peers,
    secret: config.mesh.secret ?? '',
    heartbeatMs: config.mesh.heartbeatMs,
    deadThresholdMs: config.mesh.deadThresholdMs,
    log,
    counters: {
      frame: (type, direction) => services.observability.metrics.mesh.frames.inc({ type, direction }),
      authFailure: () => services.observability.metrics.mesh.authFailures.inc(),
    },
    onHint: (hint, origin) => services.hintEffects.apply(hint, origin, 'mesh'),
    stats: statsSource(services),
    timing,
  })
  try {
    await mesh.start()
  } catch (error) {
    await mesh.close()
    throw new BootError((error as Error).message, 2, { cause: error })
  }
  services.hints.addSink(mesh)
  app.decorate('mesh', mesh)
  services.observability.metrics.onCollect(() => {
    const { peers, rttSeconds } = services.observability.metrics.mesh
    const views = mesh.peerViews()
    peers.reset()
    for (const state of ['connected', 'connecting', 'backoff', 'self', 'refused']) {
      peers.set({ state }, views.filter((view) => view.state === state).length)
    }
    rttSeconds.reset()
    for (const view of views) if (view.rttMs !== null) rttSeconds.set({ peer: view.address }, view.rttMs / 1000)
  })
  log.info(
    { peers: config.mesh.peers.length, auth, listening: `${config.host}:${mesh.port}`, server_id: config.serverId },
    'mesh',
  )
  app.addHook('onClose', () => mesh.close())
}

/** PEER_STATS from the live state; rates are per second since the previous report. */
function statsSource(services: BrokerServices): () => PeerStats {
  let last = { at: Date.now(), push: 0, pop: 0, ack: 0 }
  return () => {
    const totals = services.observability.collector.totals
    const now = { at: Date.now(), push: totals.messages, pop: totals.delivered, ack: totals.ackRequests }
    const seconds = Math.max(0.001, (now.at - last.at) / 1000)
    const rate = (key: 'push' | 'pop' | 'ack') => Math.round(((now[key] - last[key]) / seconds) * 10) / 10
    const stats: PeerStats = {
      version: BROKER_VERSION,
      parkedPops: services.waiters.parked,
      spoolRecords: services.spool?.size.records ?? 0,
      spoolBytes: services.spool?.size.bytes ?? 0,
      poolTotal: services.pool.totalCount,
      poolIdle: services.pool.idleCount,
      poolWaiting: services.pool.waitingCount,
      rates: { push: rate('push'), pop: rate('pop'), ack: rate('ack') },
    }
    last = now
    return stats
  }
}

export default fp(meshPart, { name: 'queen-mesh', dependencies: ['queen-engines'] })
