/**
 * DELETE /api/v1/queues/:queue/clear[?partition=] (docs/http-api.md, "Clear a queue", admin): deletes every message of
 * a queue, or of the one partition named by `partition` (JS `Admin.clearQueue(name, partition)`), and keeps the queue,
 * its options, partitions, consumer groups and dedup entries (queen.clear_queue, schema 007).
 */
import type { FastifyInstance } from 'fastify'
import { IGNORE_BODY } from '../body-parsing.js'
import { BrokerError } from '../../errors.js'
import { clearQueueMessages } from '../../store/queues.js'
import { tenantOf } from '../tenant.js'
import { queryValue, type Query } from '../validation/query.js'
import { checkName, checkQueueName } from '../validation/rules.js'
import type { QueueClearAnswer } from '../../../wire/index.js'

export function registerQueueClearRoutes(app: FastifyInstance): void {
  app.delete('/api/v1/queues/:queue/clear', IGNORE_BODY, async (request) => {
    const queue = checkQueueName((request.params as { queue?: unknown }).queue, 'queue')
    // Absent (or empty, which counts as absent: docs/http-api.md, "Query and path parameters") clears the whole queue;
    // the client sends the parameter only for a partition it names.
    const rawPartition = queryValue(request.query as Query, 'partition')
    const partition = rawPartition === undefined ? null : checkName(rawPartition, 'partition')
    const deletedMessages = await clearQueueMessages(app.broker.pool, { tenant: tenantOf(request), queue, partition })
    // An unknown queue is a 404 with or without a partition. A partition the queue does not have is not an
    // error: it holds no message, so the answer is the one for nothing to clear (200, deletedMessages 0),
    // as for an empty queue; the same request repeated after a clear answers the same way.
    if (deletedMessages === null) throw new BrokerError('queueNotFound', 'Queue not found')
    // Parked pops need no answer: nothing became deliverable, and they keep waiting for the next push.
    return { success: true, queue, deletedMessages } satisfies QueueClearAnswer
  })
}
