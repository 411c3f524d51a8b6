/**
 * GET /api/v1/status/top (docs/http-api.md, "Status and analytics"): the queues with the most pending
 * messages and the consumer groups with the most lag, at most `limit` (1-100, default 10) of each, and the
 * queue and partition counts, from the stats snapshot. The dashboard's overview polls it instead of the
 * whole queue listing, so an open dashboard costs the same with 10 queues or 1,000 (bench/README.md,
 * "The cost of an open dashboard").
 */
import type { FastifyInstance } from 'fastify'
import { validationError } from '../../errors.js'
import { readStatusTop } from '../../store/status-top.js'
import { tenantOf } from '../tenant.js'
import { queryInteger, type Query } from '../validation/query.js'
import type { StatusTopAnswer } from '../../../wire/index.js'

const PARAMETERS = new Set(['limit'])

export function registerStatusTopRoute(app: FastifyInstance): void {
  app.get('/api/v1/status/top', async (request) => {
    const query = request.query as Query
    const unknown = Object.keys(query).find((key) => !PARAMETERS.has(key))
    if (unknown !== undefined) throw validationError(`${unknown}: unknown parameter (known: limit)`)
    const limit = queryInteger(query, 'limit', { min: 1, max: 100 }, 10)
    const top = await readStatusTop(app.broker.pool, { tenant: tenantOf(request), limit })
    return {
      queues: top.queues,
      partitions: top.partitions,
      queuesByPending: top.queuesByPending,
      groupsByLag: top.groupsByLag.map((row) => ({
        consumerGroup: row.consumer_group,
        queueName: row.queue_name,
        partitions: row.partitions,
        lagMessages: row.lag_messages,
        lagSeconds: Math.round(row.lag_seconds),
      })),
      statsAge: top.refreshedAt ? Math.max(0, Math.floor((Date.now() - top.refreshedAt.getTime()) / 1000)) : null,
      refreshedAt: top.refreshedAt?.toISOString() ?? null,
    } satisfies StatusTopAnswer
  })
}
