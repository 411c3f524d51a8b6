/** GET /api/v1/pop/queue/:queue, /partition/:partition (http-api.md 5.2) and the namespace/task pop GET /api/v1/pop (5.3). */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Query } from '../validation/query.js'
import { parsePopRequest } from '../validation/pop-query.js'
import { tenantOf } from '../tenant.js'
import { stringifyWithRaw } from '../raw-json.js'

async function handlePop(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
  const broker = app.broker
  const popRequest = parsePopRequest(
    tenantOf(request),
    request.params as { queue?: unknown; partition?: unknown },
    request.query as Query,
    broker.config,
  )
  // Pop-maintenance (semantics.md 11): answer 204 at once, or park a long-poll until it ends.
  if (broker.maintenance.pop) {
    if (!popRequest.wait) return reply.code(204).send()
    const started = Date.now()
    const resumed = await broker.maintenance.waitForPopResume(popRequest.timeoutMs)
    const waited = Date.now() - started
    if (resumed !== 'resumed') {
      request.parkedMs = waited
      return reply.code(204).send()
    }
    popRequest.timeoutMs = Math.max(0, popRequest.timeoutMs - waited)
  }
  // The response's close before it finished is the client's disconnect (the request's own close fires
  // once its body is read).
  const gone = new AbortController()
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) gone.abort()
  })
  const answer = await broker.pop.pop(popRequest, gone.signal)
  request.parkedMs = answer.parkedMs ?? 0
  if (answer.leaseId !== undefined) {
    const leaseId = answer.leaseId
    // A client gone before its answer is written must not keep the lease (semantics.md 4.2).
    const release = () => {
      broker.pop.releaseLease(leaseId).catch((error: unknown) => broker.reportError(error, 'lease release'))
    }
    if (reply.raw.destroyed || request.raw.socket.destroyed) {
      release()
      return reply
    }
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) release()
    })
  }
  return reply.header('content-type', 'application/json; charset=utf-8').send(stringifyWithRaw(answer.body))
}

export function registerPopRoutes(app: FastifyInstance): void {
  app.get('/api/v1/pop', (request, reply) => handlePop(app, request, reply))
  app.get('/api/v1/pop/queue/:queue', (request, reply) => handlePop(app, request, reply))
  app.get('/api/v1/pop/queue/:queue/partition/:partition', (request, reply) => handlePop(app, request, reply))
}
