/** POST /api/v1/ack and /api/v1/ack/batch (docs/http-api.md, "Ack" and "Ack batch"). */
import type { FastifyInstance } from 'fastify'
import { ackResultItem } from '../envelopes/ack-result.js'
import { describeDbFailure } from '../../../platform/postgres/pg-errors.js'
import { tenantOf } from '../tenant.js'
import type { AckAnswer } from '../../../wire/index.js'
import { parseAckBatchBody, parseAckBody } from '../validation/ack-body.js'

export function registerAckRoutes(app: FastifyInstance): void {
  app.post('/api/v1/ack', async (request): Promise<AckAnswer> => {
    const item = parseAckBody(request.body)
    try {
      const outcomes = await app.broker.ack.ack(tenantOf(request), [item])
      return outcomes.map(ackResultItem)
    } catch (error) {
      request.log.error({ err: error }, 'ack failed')
      return { success: false, error: describeDbFailure(error) }
    }
  })

  app.post('/api/v1/ack/batch', async (request): Promise<AckAnswer> => {
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
