/**
 * GET /api/v1/resources/partitions?queue&limit&offset (JS `Admin.getPartitions(params)`): the tenant's
 * partitions, of one queue or of every queue, by queue name then partition name, each with its queue, tags,
 * creation and last push times and live message counters (the counters of GET /api/v1/resources/queues).
 * `limit` defaults to 1000 (max 10 000; every row computes its counters, so the default keeps an unfiltered
 * call on a tenant with many partitions bounded); `offset` pages on. An unknown queue has no partitions:
 * `{"partitions":[]}`, not a 404, as a filter that matches nothing.
 */
import type { FastifyInstance } from 'fastify'
import { listPartitions } from '../../store/partitions.js'
import { tenantOf } from '../tenant.js'
import { queryInteger, queryValue, type Query } from '../validation/query.js'
import { checkQueueName } from '../validation/rules.js'

/** Rows of one answer when the request gives no `limit`. */
const DEFAULT_PARTITION_LIMIT = 1000
const MAX_PARTITION_LIMIT = 10_000

export function registerPartitionRoutes(app: FastifyInstance): void {
  app.get('/api/v1/resources/partitions', async (request) => {
    const query = request.query as Query
    const queue = queryValue(query, 'queue')
    const rows = await listPartitions(app.broker.pool, {
      tenant: tenantOf(request),
      queue: queue === undefined ? null : checkQueueName(queue, 'queue'),
      limit: queryInteger(query, 'limit', { min: 1, max: MAX_PARTITION_LIMIT }, DEFAULT_PARTITION_LIMIT),
      offset: queryInteger(query, 'offset', { min: 0, max: Number.MAX_SAFE_INTEGER }, 0),
    })
    return {
      partitions: rows.map((row) => ({
        id: row.id,
        name: row.name,
        queue: row.queue,
        namespace: row.namespace,
        task: row.task,
        createdAt: row.created_at.toISOString(),
        lastActivityAt: row.last_activity_at.toISOString(),
        messages: { total: row.total, pending: row.pending, processing: row.processing },
      })),
    }
  })
}
