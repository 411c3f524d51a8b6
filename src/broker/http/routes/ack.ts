/** POST /api/v1/ack and /api/v1/ack/batch (http-api.md 5.4, 5.5). */
import type { FastifyInstance } from 'fastify'
import type { AckOutcome } from '../../engine/ack-engine.js'
import { describeDbFailure } from '../../db/pg-errors.js'
import { tenantOf } from '../tenant.js'
import { parseAckBatchBody, parseAckBody } from '../validation/ack-body.js'

function ackResultItem(outcome: AckOutcome, index: number): Record<string, unknown> {
  return {
    index,
    transactionId: outcome.transactionId,
    success: outcome.success,
    error: outcome.error,
    queueName: outcome.queueName,
    partitionName: outcome.partitionName,
    leaseReleased: outcome.leaseReleased,
    dlq: outcome.dlq,
    alreadyAcked: outcome.alreadyAcked,
  }
}

export function registerAckRoutes(app: FastifyInstance): void {
  app.post('/api/v1/ack', async (request) => {
    const item = parseAckBody(request.body)
    try {
      const outcomes = await app.broker.ack.ack(tenantOf(request), [item])
      return outcomes.map(ackResultItem)
    } catch (error) {
      request.log.error({ err: error }, 'ack failed')
      return { success: false, error: describeDbFailure(error) }
    }
  })

  app.post('/api/v1/ack/batch', async (request) => {
    const items = parseAckBatchBody(request.body, app.broker.config.maxBatchItems)
    try {
      const outcomes = await app.broker.ack.ack(tenantOf(request), items)
      return outcomes.map(ackResultItem)
    } catch (error) {
      request.log.error({ err: error }, 'ack batch failed')
      return { success: false, error: describeDbFailure(error) }
    }
  })
}
