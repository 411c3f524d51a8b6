/**
 * The jobs part: the background work of a broker, started once the schema is ready and stopped at
 * shutdown: expired-lease reclaim, the observability loops (stats snapshot, per-minute metrics, rates
 * log) and the deleting housekeeping jobs (retention, eviction).
 */
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { Logger } from 'pino'
import type { BrokerConfig } from '../config/broker-config.js'
import type { BackgroundJob } from '../../platform/jobs/background-loop.js'
import { leaseReclaimJob } from '../jobs/lease-reclaim-job.js'
import { housekeepingJobs } from '../jobs/housekeeping-jobs.js'

async function jobsPart(app: FastifyInstance, { config, log }: { config: Pick<BrokerConfig, 'jobs'>; log: Logger }) {
  const services = app.broker
  const jobs: BackgroundJob[] = [
    leaseReclaimJob(app.database.pool, services.waiters, services.events, config.jobs.leaseReclaimIntervalMs, log),
    ...services.observability.jobs,
    ...housekeepingJobs({
      pool: app.database.pool,
      config: config.jobs,
      log,
      onDeleted: (deleted) => {
        if (deleted.deadLettered > 0)
          services.events.emit('deadLettered', deleted.tenant, deleted.queue, deleted.deadLettered)
      },
    }),
  ]
  await app.database.whenSchemaReady(() => {
    for (const job of jobs) job.start()
  })
  app.addHook('onClose', async () => {
    await Promise.all(jobs.map((job) => job.stop()))
  })
}

export default fp(jobsPart, { name: 'queen-jobs', dependencies: ['queen-engines'] })
