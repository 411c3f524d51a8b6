/**
 * Queue resources: POST /api/v1/configure, GET /api/v1/resources/queues[/:queue],
 * GET /api/v1/resources/queues/:queue/depth, DELETE /api/v1/resources/queues/:queue (docs/http-api.md, "Configure a
 * queue", "Delete a queue", "Resource listings" and "Queue depth").
 */
import { IGNORE_BODY } from '../body-parsing.js'
import type { FastifyInstance } from 'fastify'
import { BrokerError } from '../../errors.js'
import { queueOptionsOf } from '../../engine/queue-options.js'
import { configureQueue, deleteQueue } from '../../store/queue-configuration.js'
import { listQueuePartitions, listQueues, queueDepth } from '../../store/queues.js'
import { tenantOf } from '../tenant.js'
import { parseConfigureBody } from '../validation/configure-body.js'
import { queryInteger, queryValue, type Query } from '../validation/query.js'
import { checkName, checkQueueName, checkText } from '../validation/rules.js'
import type {
  ConfigureAnswer,
  QueueDeleteAnswer,
  QueueDepthAnswer,
  QueueDetailAnswer,
  QueueListAnswer,
} from '../../../wire/index.js'

/** A text filter of the listing, checked like the names it is compared with (no `\u0000`). */
const optionalText = (query: Query, name: string): string | null => {
  const value = queryValue(query, name)
  return value === undefined ? null : checkText(value, name, 255)
}

const iso = (value: Date | null) => (value ? value.toISOString() : null)

export function registerQueueRoutes(app: FastifyInstance): void {
  app.post('/api/v1/configure', async (request) => {
    const broker = app.broker
    const tenant = tenantOf(request)
    const configure = parseConfigureBody(request.body, broker.cipher !== undefined)
    const configured = await configureQueue(broker, {
      tenant,
      queue: configure.queue,
      namespace: configure.namespace,
      task: configure.task,
      options: configure.options,
    })
    if (configure.ignored.length > 0) {
      request.log.info({ queue: configure.queue, ignored: configure.ignored }, 'configure: legacy options ignored')
    }
    return {
      configured: true,
      queueId: configured.queueId,
      partitionId: configured.partitionId,
      queue: configure.queue,
      namespace: configure.namespace,
      task: configure.task,
      options: configure.echoedOptions,
      ...(configure.ignored.length > 0 ? { ignored: configure.ignored } : {}),
    } satisfies ConfigureAnswer
  })

  app.delete('/api/v1/resources/queues/:queue', IGNORE_BODY, async (request) => {
    const broker = app.broker
    const tenant = tenantOf(request)
    const queue = checkQueueName((request.params as { queue?: unknown }).queue, 'queue')
    const existed = await deleteQueue(broker, { tenant, queue })
    return { deleted: true, queue, existed } satisfies QueueDeleteAnswer
  })

  app.get('/api/v1/resources/queues', async (request) => {
    const query = request.query as Query
    const rows = await listQueues(app.broker.pool, {
      tenant: tenantOf(request),
      search: optionalText(query, 'search'),
      namespace: optionalText(query, 'namespace'),
      task: optionalText(query, 'task'),
      limit: queryInteger(query, 'limit', { min: 1, max: 10_000 }, 10_000),
      offset: queryInteger(query, 'offset', { min: 0, max: Number.MAX_SAFE_INTEGER }, 0),
    })
    return {
      queues: rows.map((row) => ({
        id: row.id,
        name: row.name,
        namespace: row.namespace,
        task: row.task,
        createdAt: row.created_at.toISOString(),
        partitions: row.partitions,
        messages: { total: row.total, pending: row.pending, processing: row.processing },
      })),
    } satisfies QueueListAnswer
  })

  app.get('/api/v1/resources/queues/:queue', async (request) => {
    const broker = app.broker
    const name = checkQueueName((request.params as { queue?: unknown }).queue, 'queue')
    const queue = await broker.registry.load(tenantOf(request), name)
    if (!queue) throw new BrokerError('queueNotFound', 'Queue not found')
    const rows = await listQueuePartitions(broker.pool, { queueId: queue.id })
    const totals = { total: 0, pending: 0, processing: 0, completed: 0, failed: 0, deadLetter: 0 }
    const partitions = rows.map((row) => {
      const stats = {
        total: row.total,
        pending: row.pending,
        processing: row.processing,
        completed: row.completed,
        failed: row.failed,
        deadLetter: row.dead_letter,
      }
      for (const key of Object.keys(totals) as (keyof typeof totals)[]) totals[key] += stats[key]
      return {
        id: row.id,
        name: row.name,
        createdAt: row.created_at.toISOString(),
        stats,
        oldestMessage: iso(row.oldest_message),
        newestMessage: iso(row.newest_message),
      }
    })
    return {
      id: queue.id,
      name: queue.name,
      namespace: queue.namespace,
      task: queue.task,
      createdAt: queue.createdAt.toISOString(),
      partitions,
      totals,
      options: queueOptionsOf(queue),
    } satisfies QueueDetailAnswer
  })

  // The cheap backlog read of the Go queenctl's `queue depth`: live, one statement, no segment scan.
  app.get('/api/v1/resources/queues/:queue/depth', async (request) => {
    const broker = app.broker
    const name = checkQueueName((request.params as { queue?: unknown }).queue, 'queue')
    const rawGroup = queryValue(request.query as Query, 'group')
    const group = rawGroup === undefined ? null : checkName(rawGroup, 'group')
    const queue = await broker.registry.load(tenantOf(request), name)
    if (!queue) throw new BrokerError('queueNotFound', 'Queue not found')
    const rows = await queueDepth(broker.pool, { queueId: queue.id, group })
    const partitions = rows.map((row) => ({
      partition: row.partition,
      pending: row.pending,
      processing: row.processing,
      ready: row.pending - row.processing,
    }))
    const sum = (key: 'pending' | 'processing' | 'ready') => partitions.reduce((total, row) => total + row[key], 0)
    const pending = sum('pending')
    const ready = sum('ready')
    return {
      queue: queue.name,
      group,
      pending,
      processing: sum('processing'),
      ready,
      partitionsPending: partitions.filter((row) => row.pending > 0).length,
      partitionsReady: partitions.filter((row) => row.ready > 0).length,
      // No last-value delivery on this broker: every group reads its whole log.
      conflation: false,
      effectivePending: pending,
      effectiveReady: ready,
      partitions,
    } satisfies QueueDepthAnswer
  })
}
