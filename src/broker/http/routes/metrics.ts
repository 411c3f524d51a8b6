/**
 * GET /metrics (JSON with real values, docs/http-api.md, "Health and metrics") and GET /metrics/prometheus (text
 * exposition of this broker's registry, docs/operations.md, "Prometheus series"). Both are operator surfaces read from
 * memory; neither queries PostgreSQL except `queen_db_healthy`'s round trip on the health probe's own connection.
 */
import type { FastifyInstance } from 'fastify'
import type { MetricsAnswer } from '../../../wire/index.js'

const twoDecimals = (value: number) => Math.round(value * 100) / 100

export function registerMetricsRoutes(app: FastifyInstance): void {
  app.get('/metrics', () => {
    const broker = app.broker
    const { collector } = broker.observability
    const rates = collector.rates()
    const memory = process.memoryUsage()
    const cpu = process.cpuUsage()
    return {
      uptime: Math.floor((Date.now() - broker.state.startedAt) / 1000),
      // `rate` is per second over the last stats interval (STATS_INTERVAL_MS).
      requests: { total: collector.totals.requests, rate: twoDecimals(rates.requests) },
      messages: { total: collector.totals.messages, rate: twoDecimals(rates.messages) },
      database: {
        poolSize: broker.config.pg.poolSize,
        idleConnections: broker.pool.idleCount,
        waitingRequests: broker.pool.waitingCount,
      },
      memory: {
        rss: memory.rss,
        heapTotal: memory.heapTotal,
        heapUsed: memory.heapUsed,
        external: memory.external,
        arrayBuffers: memory.arrayBuffers,
      },
      // Microseconds of CPU time since the process started.
      cpu: { user: cpu.user, system: cpu.system },
    } satisfies MetricsAnswer
  })

  app.get('/metrics/prometheus', async (_request, reply) => {
    const { metrics } = app.broker.observability
    const text = await metrics.exposition()
    return reply.header('Content-Type', metrics.contentType).header('Cache-Control', 'no-cache').send(text)
  })
}
