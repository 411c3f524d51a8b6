/** GET /api/v1/dlq (docs/http-api.md, "List the dead-letter queue"): filters and real pagination, with the total. */
import type { FastifyInstance } from 'fastify'
import { listDeadLetters } from '../../store/dlq.js'
import { tenantOf } from '../tenant.js'
import { readablePayload, rowIdentity } from '../../crypto/read-decryption.js'
import { queryInteger, queryValue, type Query } from '../validation/query.js'
import { checkName, checkQueueName, checkTimestamp } from '../validation/rules.js'
import type { DlqAnswer } from '../../../wire/index.js'

export function registerDlqRoutes(app: FastifyInstance): void {
  app.get('/api/v1/dlq', async (request) => {
    const query = request.query as Query
    const queue = queryValue(query, 'queue')
    const group = queryValue(query, 'consumerGroup')
    const partition = queryValue(query, 'partition')
    const from = queryValue(query, 'from')
    const to = queryValue(query, 'to')
    const limit = queryInteger(query, 'limit', { min: 1, max: 10_000 }, 100)
    const offset = queryInteger(query, 'offset', { min: 0, max: Number.MAX_SAFE_INTEGER }, 0)
    const tenant = tenantOf(request)
    const rows = await listDeadLetters(app.broker.pool, {
      tenant,
      queue: queue === undefined ? null : checkQueueName(queue, 'queue'),
      group: group === undefined ? null : checkName(group, 'consumerGroup'),
      partition: partition === undefined ? null : checkName(partition, 'partition'),
      from: from === undefined ? null : checkTimestamp(from, 'from'),
      to: to === undefined ? null : checkTimestamp(to, 'to'),
      limit,
      offset,
    })
    return {
      messages: rows.map((row) => {
        // `data` is decrypted (docs/semantics.md, "Where payloads are decrypted"); null with `dataError` when it cannot
        // be.
        const readable = readablePayload(app.broker.cipher, row.payload, row.is_encrypted, rowIdentity(tenant, row))
        return {
          id: row.message_id,
          transactionId: row.transaction_id,
          partitionId: row.partition_id,
          queue: row.queue_name,
          partition: row.partition_name,
          consumerGroup: row.consumer_group,
          errorMessage: row.error,
          retryCount: row.failures,
          data: readable.payload,
          ...(readable.error === undefined ? {} : { dataError: readable.error }),
          producerSub: row.producer_sub,
          createdAt: row.message_created_at.toISOString(),
          failedAt: row.failed_at.toISOString(),
        }
      }),
      total: rows[0]?.total ?? 0,
      pagination: { limit, offset },
    } satisfies DlqAnswer
  })
}
