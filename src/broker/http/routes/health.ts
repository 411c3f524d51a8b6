/** GET /health (readiness, database round trip) and GET /health/live (liveness, never the database). */
import type { FastifyInstance } from 'fastify'
import type { HealthAnswer } from '../../../wire/index.js'
import { BROKER_VERSION } from '../../version.js'

export function registerHealthRoutes(app: FastifyInstance): void {
  app.get('/health/live', () => ({
    status: 'alive',
    uptime_s: Math.floor((Date.now() - app.broker.state.startedAt) / 1000),
  }))

  app.get('/health', async (_request, reply) => {
    const broker = app.broker
    const common = {
      server: 'queenctl',
      version: BROKER_VERSION,
      server_id: broker.config.serverId,
      worker_id: 0,
      uptime_s: Math.floor((Date.now() - broker.state.startedAt) / 1000),
      maintenance: { push: broker.maintenance.push, pop: broker.maintenance.pop },
      spool: {
        state: broker.spool?.state ?? 'unwritable',
        records: broker.spool?.size.records ?? 0,
        bytes: broker.spool?.size.bytes ?? 0,
      },
      mesh: {
        auth: app.mesh?.auth ?? 'off',
        peersConfigured: app.mesh?.peerViews().length ?? 0,
        peersConnected: app.mesh?.peersConnected ?? 0,
      },
      shared_state: { enabled: app.mesh !== undefined, server_id: broker.config.serverId },
      queen: { worker_id: 0, status: 'active' },
    }
    if (broker.state.phase === 'draining') return reply.code(503).send({ status: 'draining', ...common } satisfies HealthAnswer)
    const database = await broker.health.state()
    if (database !== 'writable')
      return reply
        .code(503)
        .send({
          status: 'unhealthy',
          database: database === 'read-only' ? 'read-only' : 'disconnected',
          ...common,
        } satisfies HealthAnswer)
    if (broker.state.phase === 'starting')
      return reply.code(503).send({ status: 'starting', database: 'connected', ...common } satisfies HealthAnswer)
    return { status: 'healthy', database: 'connected', ...common } satisfies HealthAnswer
  })
}
