/**
 * POST /api/v1/stats/refresh (admin, route 35): recomputes the stats snapshot now. Reads no body (the
 * dashboard posts none). Answers the rows written per level (`partition`: the partitions recomputed, those
 * that changed since the last refresh; StatsRefreshCounts), or that another instance holds the stats lock and
 * is refreshing already (docs/http-api.md, "Consumer groups").
 */
import type { FastifyInstance } from 'fastify'
import { IGNORE_BODY } from '../body-parsing.js'
import type { StatsRefreshAnswer } from '../../../wire/index.js'

export function registerStatsRefreshRoute(app: FastifyInstance): void {
  app.post('/api/v1/stats/refresh', IGNORE_BODY, async (): Promise<StatsRefreshAnswer> => {
    const result = await app.broker.observability.refreshStats()
    if (result.skipped) return { skipped: true, reason: 'another_instance_running' }
    const { counts } = result
    return {
      partition: counts.partition,
      queue: counts.queue,
      namespace: counts.namespace,
      task: counts.task,
      system: counts.system,
      cleanup: counts.cleanup,
    }
  })
}
