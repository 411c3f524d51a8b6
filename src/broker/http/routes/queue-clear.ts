/**
 * DELETE /api/v1/queues/:queue/clear (http-api.md 6.4, admin): deletes every message of a queue and keeps
 * the queue, its options, partitions, consumer groups and dedup entries (queen.clear_queue, schema 007).
 */
import type { FastifyInstance } from 'fastify'
import { IGNORE_BODY } from '../body-parsing.js'
import { BrokerError } from '../../errors.js'
import { clearQueueMessages } from '../../store/queues.js'
import { tenantOf } from '../tenant.js'
import { checkQueueName } from '../validation/rules.js'

export function registerQueueClearRoutes(app: FastifyInstance): void {
  app.delete('/api/v1/queues/:queue/clear', IGNORE_BODY, async (request) => {
    const queue = checkQueueName((request.params as { queue?: unknown }).queue, 'queue')
    const deletedMessages = await clearQueueMessages(app.broker.pool, { tenant: tenantOf(request), queue })
    if (deletedMessages === null) throw new BrokerError('queueNotFound', 'Queue not found')
    // Parked pops need no answer: nothing became deliverable, and they keep waiting for the next push.
    return { success: true, queue, deletedMessages }
  })
}
