/**
 * Resource listings across queues (docs/http-api.md, "Resource listings"): GET /api/v1/resources/namespaces, /tasks and
 * /overview. Counters are computed live from queen.partition_counters (docs/semantics.md, "Status counters") rather
 * than read from the stats snapshot, which does not exist yet; `statsAge` is therefore 0 (the data is current). When
 * the snapshot job lands, these statements read it and `statsAge` becomes its age.
 */
import type { FastifyInstance } from 'fastify'
import { listNamespaces, listTasks, readOverview, type GroupedQueuesRow } from '../../store/overview.js'
import { tenantOf } from '../tenant.js'
import type { GroupedQueues, NamespacesAnswer, ResourceOverviewAnswer, TasksAnswer } from '../../../wire/index.js'

function grouped(row: GroupedQueuesRow): GroupedQueues {
  return {
    queues: row.queues,
    partitions: row.partitions,
    messages: { total: row.total, pending: row.pending },
  }
}

export function registerResourceOverviewRoutes(app: FastifyInstance): void {
  app.get('/api/v1/resources/namespaces', async (request) => {
    const rows = await listNamespaces(app.broker.pool, { tenant: tenantOf(request) })
    return { namespaces: rows.map((row) => ({ namespace: row.namespace, ...grouped(row) })) } satisfies NamespacesAnswer
  })

  app.get('/api/v1/resources/tasks', async (request) => {
    const rows = await listTasks(app.broker.pool, { tenant: tenantOf(request) })
    return { tasks: rows.map((row) => ({ task: row.task, ...grouped(row) })) } satisfies TasksAnswer
  })

  app.get('/api/v1/resources/overview', async (request) => {
    const o = await readOverview(app.broker.pool, { tenant: tenantOf(request) })
    return {
      queues: o.queues,
      partitions: o.partitions,
      namespaces: o.namespaces,
      tasks: o.tasks,
      messages: {
        total: o.total,
        pending: o.pending,
        processing: o.processing,
        completed: o.completed,
        failed: o.failed,
        deadLetter: o.dead_letter,
      },
      lag: {
        time: { avg: o.time_avg, median: o.time_median, min: o.time_min, max: o.time_max },
        offset: { avg: o.offset_avg, median: o.offset_median, min: o.offset_min, max: o.offset_max },
      },
      // Rates need the per-minute metrics (docs/operations.md, "Metrics"), which are not written yet; until
      // then the overview reports 0 rather than a guess from two counter reads.
      throughput: { ingestedPerSecond: 0, processedPerSecond: 0 },
      timestamp: new Date().toISOString(),
      statsAge: 0,
    } satisfies ResourceOverviewAnswer
  })
}
