/** POST /api/v1/push (docs/http-api.md, "Push"). */
import type { FastifyInstance } from 'fastify'
import { pushResultItem } from '../envelopes/push-result.js'
import { producerSubOf } from '../../auth/identity.js'
import { tenantOf } from '../tenant.js'
import type { PushAnswer } from '../../../wire/index.js'
import { parsePushBody } from '../validation/push-body.js'
import { checkNamesPerRequest } from '../validation/request-ceilings.js'

export function registerPushRoutes(app: FastifyInstance): void {
  app.post('/api/v1/push', async (request, reply) => {
    const broker = app.broker
    // The token's sub with auth on (docs/operations.md, "Producer identity"); a producerSub in the body is never read.
    const producerSub = producerSubOf(request)
    const items = parsePushBody(request.body, broker.config.maxBatchItems, producerSub)
    checkNamesPerRequest(items, broker.config, 'items')
    const outcomes = await broker.ingest.push(tenantOf(request), items, { requestId: request.id })
    // Nothing was stored anywhere (PostgreSQL unreachable and the spool could not take it): 503, and the
    // producer's retry with the same transaction ids is idempotent (docs/http-api.md, "Status codes on the data
    // plane").
    if (outcomes.length > 0 && outcomes.every((outcome) => outcome.status === 'failed' && outcome.unavailable)) {
      request.log.warn({ items: outcomes.length }, 'push refused: neither PostgreSQL nor the spool could take it')
      void reply.code(503).header('Retry-After', '1')
    }
    return outcomes.map(pushResultItem) satisfies PushAnswer
  })
}
