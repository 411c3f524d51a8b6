/** POST /api/v1/transaction (docs/http-api.md, "Transaction"). */
import type { FastifyInstance } from 'fastify'
import { producerSubOf } from '../../auth/identity.js'
import { tenantOf } from '../tenant.js'
import { checkNamesPerRequest } from '../validation/request-ceilings.js'
import { parseTransactionBody } from '../validation/transaction-body.js'
import type { TransactionAnswer } from '../../../wire/index.js'

export function registerTransactionRoutes(app: FastifyInstance): void {
  app.post('/api/v1/transaction', async (request) => {
    const { operations, requiredLeases } = parseTransactionBody(
      request.body,
      app.broker.config.maxBatchItems,
      producerSubOf(request),
    )
    const pushed = operations.flatMap((operation) => (operation.type === 'push' ? operation.items : []))
    checkNamesPerRequest(pushed, app.broker.config, 'operations')
    const answer = await app.broker.transactions.run(tenantOf(request), operations, requiredLeases)
    if (!answer.success) request.log.info({ error: answer.error }, 'transaction rolled back')
    return answer satisfies TransactionAnswer
  })
}
