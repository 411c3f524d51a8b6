/**
 * Per-queue status (docs/http-api.md, "Status and analytics", routes 37-39): GET /api/v1/status/queues,
 * /status/queues/:queue and /status/queues/:queue/messages. Message counters come from the stats snapshot
 * (docs/semantics.md, "Status counters"); partitions, cursors and messages are read live.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { QueueRecord } from '../../engine/queue-registry.js'
import { BrokerError } from '../../errors.js'
import { listPartitionStatus, listQueueMessageStatus, listQueueStatus } from '../../store/queue-status.js'
import { tenantOf } from '../tenant.js'
import { queryInteger, queryValue, type Query } from '../validation/query.js'
import { checkQueueName, checkText } from '../validation/rules.js'
import { HOUR_MS, parseTimeRange } from '../validation/time-range.js'
import type { QueueStatusAnswer, QueueStatusListAnswer } from '../../../wire/index.js'

const iso = (value: Date | null) => (value ? value.toISOString() : null)

/** The queue named in the path, or a 404. */
async function pathQueue(app: FastifyInstance, request: FastifyRequest): Promise<QueueRecord> {
  const name = checkQueueName((request.params as { queue?: unknown }).queue, 'queue')
  const queue = await app.broker.registry.load(tenantOf(request), name)
  if (!queue) throw new BrokerError('queueNotFound', 'Queue not found')
  return queue
}

export function registerStatusQueueRoutes(app: FastifyInstance): void {
  app.get('/api/v1/status/queues', async (request) => {
    const query = request.query as Query
    // Counters are the snapshot's current ones; from/to are validated for the clients that send them.
    parseTimeRange(query, HOUR_MS)
    const namespace = queryValue(query, 'namespace')
    const task = queryValue(query, 'task')
    const limit = queryInteger(query, 'limit', { min: 1, max: 10_000 }, 100)
    const offset = queryInteger(query, 'offset', { min: 0, max: Number.MAX_SAFE_INTEGER }, 0)
    const rows = await listQueueStatus(app.broker.pool, {
      tenant: tenantOf(request),
      namespace: namespace === undefined ? null : checkText(namespace, 'namespace', 255),
      task: task === undefined ? null : checkText(task, 'task', 255),
      limit,
      offset,
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
      pagination: { limit, offset },
    } satisfies QueueStatusListAnswer
  })

  // The Go client adds includePartitions=true; partitions are always included.
  app.get('/api/v1/status/queues/:queue', async (request) => {
    const queue = await pathQueue(app, request)
    const rows = await listPartitionStatus(app.broker.pool, { queueId: queue.id })
    const totals = { total: 0, pending: 0, processing: 0, completed: 0, failed: 0, deadLetter: 0 }
    const partitions = rows.map((row) => {
      const counters = {
        total: row.total,
        pending: row.pending,
        processing: row.processing,
        completed: row.completed,
        failed: row.failed,
        deadLetter: row.dead_letter,
      }
      for (const key of Object.keys(totals) as (keyof typeof totals)[]) totals[key] += counters[key]
      return {
        id: row.id,
        name: row.name,
        createdAt: row.created_at.toISOString(),
        messages: counters,
        stats: { ...counters },
        cursor: { totalConsumed: row.total_consumed, batchesConsumed: row.batches_consumed },
        lastActivity: row.last_activity_at.toISOString(),
        oldestMessage: iso(row.oldest_message_at),
        newestMessage: iso(row.newest_message_at),
      }
    })
    return {
      queue: {
        id: queue.id,
        name: queue.name,
        namespace: queue.namespace,
        task: queue.task,
        priority: queue.priority,
        createdAt: queue.createdAt.toISOString(),
        config: {
          leaseTime: queue.leaseTimeSeconds,
          retryLimit: queue.retryLimit,
          retryDelay: queue.retryDelayMs,
          // Message TTL is not a queue option here (retention is); the field stays for clients that read it.
          ttl: null,
          maxQueueSize: queue.maxSize,
          deadLetterQueue: queue.deadLetterQueue,
        },
      },
      partitions,
      totals: { messages: { ...totals }, ...totals },
    } satisfies QueueStatusAnswer
  })

  app.get('/api/v1/status/queues/:queue/messages', async (request) => {
    const query = request.query as Query
    const limit = queryInteger(query, 'limit', { min: 1, max: 1000 }, 50)
    const offset = queryInteger(query, 'offset', { min: 0, max: Number.MAX_SAFE_INTEGER }, 0)
    const queue = await pathQueue(app, request)
    const rows = await listQueueMessageStatus(app.broker.pool, { queueId: queue.id, limit, offset })
    return rows.map((row) => ({
      id: row.id,
      transactionId: row.transaction_id,
      partitionId: row.partition_id,
      queuePath: `${queue.name}/${row.partition_name}`,
      queue: queue.name,
      partition: row.partition_name,
      status: row.status,
      createdAt: row.created_at.toISOString(),
    }))
  })
}
