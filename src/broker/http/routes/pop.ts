/**
 * GET /api/v1/pop/queue/:queue, /partition/:partition (docs/http-api.md, "Pop from a queue") and the namespace/task pop
 * GET /api/v1/pop ("Pop by namespace or task").
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Query } from '../validation/query.js'
import { parsePopRequest } from '../validation/pop-query.js'
import { tenantOf } from '../tenant.js'
import { popEnvelope } from '../envelopes/pop-envelope.js'

async function handlePop(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
  const broker = app.broker
  const popRequest = parsePopRequest(
    tenantOf(request),
    request.params as { queue?: unknown; partition?: unknown },
    request.query as Query,
    broker.config,
  )
  // The response's close before it finished is the client's disconnect (the request's own close fires
  // once its body is read).
  const gone = new AbortController()
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) gone.abort()
  })
  const outcome = await broker.pop.pop(popRequest, gone.signal)
  request.parkedMs = outcome.parkedMs ?? 0
  const body = popEnvelope(popRequest, outcome)
  if (body === undefined) return reply.code(204).send()
  if (outcome.kind === 'messages' && outcome.heldLease !== undefined) {
    const leaseId = outcome.heldLease
    // A client gone before its answer is written must not keep the lease (docs/semantics.md, "Leases").
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
  // Sent as bytes, as a string body would be joined to the headers and copied again on its way to the socket; a large
  // answer as a stream of them (pop-envelope.ts).
  return reply.header('content-type', 'application/json; charset=utf-8').send(body)
}

export function registerPopRoutes(app: FastifyInstance): void {
  app.get('/api/v1/pop', (request, reply) => handlePop(app, request, reply))
  app.get('/api/v1/pop/queue/:queue', (request, reply) => handlePop(app, request, reply))
  app.get('/api/v1/pop/queue/:queue/partition/:partition', (request, reply) => handlePop(app, request, reply))
}
