/** POST /api/v1/push (http-api.md 5.1). */
import type { FastifyInstance } from 'fastify'
import type { PushOutcome } from '../../engine/push-engine.js'
import { tenantOf } from '../tenant.js'
import { parsePushBody } from '../validation/push-body.js'

/** The wire object of one push result (http-api.md 4.3), `index` 0-based within the request. */
export function pushResultItem(outcome: PushOutcome, index: number): Record<string, unknown> {
  switch (outcome.status) {
    case 'queued':
      return {
        index,
        transaction_id: outcome.transactionId,
        status: 'queued',
        message_id: outcome.messageId,
        partition_id: outcome.partitionId,
        trace_id: outcome.traceId,
        queueName: outcome.queue,
      }
    case 'duplicate':
      return {
        index,
        transaction_id: outcome.transactionId,
        status: 'duplicate',
        message_id: outcome.messageId,
        partition_id: outcome.partitionId,
        queueName: outcome.queue,
      }
    case 'buffered':
      return {
        index,
        transaction_id: outcome.transactionId,
        status: 'buffered',
        queue: outcome.queue,
        partition: outcome.partition,
        transactionId: outcome.transactionId,
        queueName: outcome.queue,
      }
    case 'failed':
      return {
        index,
        transaction_id: outcome.transactionId,
        status: 'failed',
        error: outcome.error,
        queueName: outcome.queue,
      }
  }
}

export function registerPushRoutes(app: FastifyInstance): void {
  app.post('/api/v1/push', async (request, reply) => {
    const broker = app.broker
    const items = parsePushBody(request.body, broker.config.maxBatchItems).map((item) => ({
      ...item,
      producerSub: null,
    }))
    const outcomes = await broker.ingest.push(tenantOf(request), items, { requestId: request.id })
    // Nothing was stored anywhere (PostgreSQL unreachable and the spool could not take it): 503, and the
    // producer's retry with the same transaction ids is idempotent (http-api.md 2.6).
    if (outcomes.length > 0 && outcomes.every((outcome) => outcome.status === 'failed' && outcome.unavailable)) {
      request.log.warn({ items: outcomes.length }, 'push refused: neither PostgreSQL nor the spool could take it')
      void reply.code(503).header('Retry-After', '1')
    }
    return outcomes.map(pushResultItem)
  })
}
