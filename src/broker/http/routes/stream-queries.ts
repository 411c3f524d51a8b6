/**
 * GET /streams/v1/queries (docs/http-api.md, "Streams"): the tenant's registered stream queries with their
 * state rows and how their consumer group reads the source queue, for the dashboard's streams page. A read
 * beside the SDK's routes, in their snake_case.
 */
import type { FastifyInstance } from 'fastify'
import { listStreamQueries } from '../../store/stream-queries.js'
import { IGNORE_BODY } from '../body-parsing.js'
import { tenantOf } from '../tenant.js'
import { validationError } from '../../errors.js'
import type { StreamQueriesAnswer } from '../../../wire/index.js'

const iso = (time: Date | null) => time?.toISOString() ?? null

export function registerStreamQueriesRoute(app: FastifyInstance): void {
  app.get('/streams/v1/queries', IGNORE_BODY, async (request) => {
    const unknown = Object.keys(request.query as object)[0]
    if (unknown !== undefined) throw validationError(`${unknown}: unknown parameter (this route takes none)`)
    const rows = await listStreamQueries(app.broker.pool, tenantOf(request))
    return {
      queries: rows.map((row) => ({
        query_id: row.id,
        name: row.name,
        source_queue: row.source_queue,
        sink_queue: row.sink_queue,
        config_hash: row.config_hash,
        created_at: row.created_at.toISOString(),
        updated_at: row.updated_at.toISOString(),
        state_keys: row.state_keys,
        state_partitions: row.state_partitions,
        state_updated_at: iso(row.state_updated_at),
        consumer_group: row.consumer_group,
        consumed: row.consumed,
        last_consumed_at: iso(row.last_consumed_at),
        lag_messages: row.lag_messages,
        lag_seconds: Math.round(row.lag_seconds),
      })),
    } satisfies StreamQueriesAnswer
  })
}
