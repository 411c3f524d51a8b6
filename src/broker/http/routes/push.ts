/** POST /api/v1/push (http-api.md 5.1). */
import type { FastifyInstance } from 'fastify'
import { DatabaseUnavailableError } from '../../db/pg-errors.js'
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
    try {
      const outcomes = await broker.push.push(tenantOf(request), items)
      return outcomes.map(pushResultItem)
    } catch (error) {
      if (!(error instanceof DatabaseUnavailableError)) throw error
      // Nothing was stored; until the spool lands (durability issue) the producer retries later with the
      // same transaction ids, which makes the retry idempotent.
      request.log.warn({ err: error }, 'push refused: database unavailable')
      void reply.code(503).header('Retry-After', '1')
      return items.map((item, index) => ({
        index,
        transaction_id: item.transactionId,
        status: 'failed',
        error: error.message,
        queueName: item.queue,
      }))
    }
  })
}
