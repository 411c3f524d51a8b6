/**
 * Messages: GET /api/v1/messages, GET and DELETE /api/v1/messages/:partitionId/:transactionId, and the DLQ
 * moves POST .../retry and POST .../dlq (docs/http-api.md). The SQL lives in schema 007 and the
 * message-* statements behind src/broker/store; handlers validate, call the store and render.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { IGNORE_BODY } from '../body-parsing.js'
import { BrokerError, validationError } from '../../errors.js'
import { tenantOf } from '../tenant.js'
import { readablePayload, rowIdentity } from '../../crypto/read-decryption.js'
import type { PayloadCipher } from '../../crypto/payload-cipher.js'
import { retryDeadLetter } from '../../store/message-retry.js'
import {
  deleteMessage,
  getMessage,
  listMessages,
  moveToDeadLetter,
  type MessageDetailRow,
  type MessageListFilter,
  type MessageListRow,
  type MessageStatus,
} from '../../store/messages.js'
import { queryInteger, queryValue, type Query } from '../validation/query.js'
import {
  asObject,
  checkName,
  checkQueueName,
  checkText,
  checkTimestamp,
  checkTransactionId,
  checkUuid,
  isUuid,
  QUEUE_MODE_GROUP,
} from '../validation/rules.js'
import type {
  MessageDeleteAnswer,
  MessageDetailAnswer,
  MessageDlqAnswer,
  MessageListAnswer,
  MessageListItem,
  MessageRetryAnswer,
} from '../../../wire/index.js'

/** Message statuses of docs/http-api.md, "List messages"; `failed` is accepted as an alias of `dead_letter`. */
const STATUS_FILTERS: Readonly<Record<string, MessageStatus>> = {
  pending: 'pending',
  processing: 'processing',
  completed: 'completed',
  dead_letter: 'dead_letter',
  failed: 'dead_letter',
}

/** Error text of a DLQ move without one (the same default as an ack with status `dlq`). */
const DEFAULT_DLQ_ERROR = 'Moved to the dead-letter queue'
/** Longest error text a DLQ move stores (queen.dead_letter keeps 4096 characters). */
const MAX_ERROR_LENGTH = 4096

/** The `mode` object: how the queues in scope are consumed (queue mode, named groups, both or none). */
function modeType(hasQueueMode: boolean, busGroups: number): 'queue' | 'bus' | 'hybrid' | 'none' {
  if (hasQueueMode) return busGroups > 0 ? 'hybrid' : 'queue'
  return busGroups > 0 ? 'bus' : 'none'
}

const iso = (value: Date | null) => (value ? value.toISOString() : null)

/**
 * The `:partitionId/:transactionId` path of the write routes; a non-UUID partition id is a 400 (docs/http-api.md,
 * "Validation at the edge").
 */
function messagePath(request: FastifyRequest): { partitionId: string; transactionId: string } {
  const params = request.params as { partitionId?: unknown; transactionId?: unknown }
  return {
    partitionId: checkUuid(params.partitionId, 'partitionId'),
    transactionId: checkTransactionId(params.transactionId, 'transactionId'),
  }
}

/** An optional group name from a body; null when absent or null. */
function optionalGroup(value: unknown): string | null {
  return value === undefined || value === null ? null : checkName(value, 'consumerGroup')
}

function parseListQuery(request: FastifyRequest): MessageListFilter {
  const query = request.query as Query
  const queue = queryValue(query, 'queue')
  const partition = queryValue(query, 'partition')
  // `ns` is the reference's short name; `namespace` is accepted too.
  const namespace = queryValue(query, 'ns') ?? queryValue(query, 'namespace')
  const task = queryValue(query, 'task')
  const status = queryValue(query, 'status')
  const group = queryValue(query, 'consumerGroup')
  const from = queryValue(query, 'from')
  const to = queryValue(query, 'to')
  let statusFilter: MessageStatus | null = null
  if (status !== undefined) {
    // Own keys only: `constructor` must not find Object.prototype's member.
    statusFilter = Object.hasOwn(STATUS_FILTERS, status) ? STATUS_FILTERS[status]! : null
    if (statusFilter === null) {
      throw validationError('status: must be one of pending, processing, completed, dead_letter, failed')
    }
  }
  return {
    tenant: tenantOf(request),
    queue: queue === undefined ? null : checkQueueName(queue, 'queue'),
    partition: partition === undefined ? null : checkName(partition, 'partition'),
    namespace: namespace === undefined ? null : checkText(namespace, 'namespace', 255),
    task: task === undefined ? null : checkText(task, 'task', 255),
    status: statusFilter,
    group: group === undefined ? QUEUE_MODE_GROUP : checkName(group, 'consumerGroup'),
    from: from === undefined ? null : checkTimestamp(from, 'from'),
    to: to === undefined ? null : checkTimestamp(to, 'to'),
    limit: queryInteger(query, 'limit', { min: 1, max: 1000 }, 200),
    offset: queryInteger(query, 'offset', { min: 0, max: Number.MAX_SAFE_INTEGER }, 0),
  }
}

function listItem(row: MessageListRow & { id: string }): MessageListItem {
  return {
    id: row.id,
    transactionId: row.transaction_id,
    partitionId: row.partition_id,
    queuePath: `${row.queue_name}/${row.partition_name}`,
    queue: row.queue_name,
    partition: row.partition_name,
    namespace: row.namespace,
    task: row.task,
    status: row.status,
    queueStatus: row.queue_status,
    busStatus: { consumedBy: row.consumed_by, totalGroups: row.total_groups },
    traceId: row.trace_id,
    producerSub: row.producer_sub,
    queuePriority: row.priority,
    createdAt: row.created_at.toISOString(),
    leaseExpiresAt: iso(row.lease_expires_at),
  }
}

function messageDetail(row: MessageDetailRow, tenant: string, cipher: PayloadCipher | undefined): MessageDetailAnswer {
  const busGroups = row.consumer_groups.length
  const readable = readablePayload(cipher, row.payload, row.is_encrypted, rowIdentity(tenant, row))
  return {
    id: row.id,
    transactionId: row.transaction_id,
    partitionId: row.partition_id,
    queuePath: `${row.queue_name}/${row.partition_name}`,
    queue: row.queue_name,
    partition: row.partition_name,
    namespace: row.namespace,
    task: row.task,
    status: row.status,
    // Decrypted (docs/semantics.md, "Where payloads are decrypted"); null with the reason when it cannot be.
    payload: readable.payload,
    ...(readable.error === undefined ? {} : { payloadError: readable.error }),
    isEncrypted: row.is_encrypted,
    traceId: row.trace_id,
    producerSub: row.producer_sub,
    createdAt: row.created_at.toISOString(),
    errorMessage: row.error_message,
    retryCount: row.retry_count,
    leaseExpiresAt: iso(row.lease_expires_at),
    queueConfig: {
      leaseTime: row.lease_time_seconds,
      retryLimit: row.retry_limit,
      retryDelay: row.retry_delay_ms,
      // A legacy option that is never stored (docs/semantics.md, "Legacy keys").
      ttl: null,
      priority: row.priority,
    },
    mode: {
      hasQueueMode: row.has_queue_mode,
      busGroupsCount: busGroups,
      consumedByGroups: row.consumer_groups.filter((group) => group.consumed).length,
      type: modeType(row.has_queue_mode, busGroups),
    },
    consumerGroups: row.consumer_groups,
  }
}

export function registerMessageRoutes(app: FastifyInstance): void {
  app.get('/api/v1/messages', async (request) => {
    const rows = await listMessages(app.broker.pool, parseListQuery(request))
    const first = rows[0]
    const hasQueueMode = first?.has_queue_mode ?? false
    const busGroups = first?.bus_groups ?? 0
    return {
      messages: rows.filter((row): row is MessageListRow & { id: string } => row.id !== null).map(listItem),
      mode: { hasQueueMode, busGroupsCount: busGroups, type: modeType(hasQueueMode, busGroups) },
    } satisfies MessageListAnswer
  })

  app.get('/api/v1/messages/:partitionId/:transactionId', async (request) => {
    const params = request.params as { partitionId?: unknown; transactionId?: unknown }
    // 7.2 answers an id that cannot exist like a missing message.
    if (!isUuid(params.partitionId)) throw new BrokerError('messageNotFound', 'Message not found')
    const transactionId = checkTransactionId(params.transactionId, 'transactionId')
    const tenant = tenantOf(request)
    const row = await getMessage(app.broker.pool, {
      tenant,
      partitionId: params.partitionId.toLowerCase(),
      transactionId,
    })
    if (!row) throw new BrokerError('messageNotFound', 'Message not found')
    return messageDetail(row, tenant, app.broker.cipher)
  })

  app.delete('/api/v1/messages/:partitionId/:transactionId', IGNORE_BODY, async (request) => {
    const { partitionId, transactionId } = messagePath(request)
    const tenant = tenantOf(request)
    const row = await deleteMessage(app.broker.pool, { tenant, partitionId, transactionId })
    const deleted = row.deleted
    // Deleting the first open message can free the partition (a lease released, a retry delay gone).
    if (deleted && row.queue_name && row.partition_name) {
      app.broker.wake(tenant, row.queue_name, row.partition_name)
    }
    return {
      success: deleted,
      partitionId,
      transactionId,
      message: deleted ? 'Message deleted successfully' : 'Message not found',
    } satisfies MessageDeleteAnswer
  })

  app.post('/api/v1/messages/:partitionId/:transactionId/retry', async (request) => {
    const { partitionId, transactionId } = messagePath(request)
    const group = optionalGroup(asObject(request.body).consumerGroup)
    const tenant = tenantOf(request)
    const retried = await retryDeadLetter(app.broker, { tenant, partitionId, transactionId, group })
    if (!retried) throw new BrokerError('notFound', 'Message is not in the dead-letter queue')
    app.broker.wake(tenant, retried.queue, retried.partition)
    return {
      success: true,
      partitionId,
      transactionId,
      consumerGroups: retried.consumerGroups,
      requeued: retried.consumerGroups.length,
      ...(retried.newTransactionId === null ? {} : { newTransactionId: retried.newTransactionId }),
    } satisfies MessageRetryAnswer
  })

  app.post('/api/v1/messages/:partitionId/:transactionId/dlq', async (request) => {
    const { partitionId, transactionId } = messagePath(request)
    const body = asObject(request.body)
    const group = optionalGroup(body.consumerGroup) ?? QUEUE_MODE_GROUP
    const error = body.error === undefined || body.error === null ? DEFAULT_DLQ_ERROR : body.error
    const tenant = tenantOf(request)
    const row = await moveToDeadLetter(app.broker.pool, {
      tenant,
      partitionId,
      transactionId,
      group,
      error: checkText(error, 'error', MAX_ERROR_LENGTH),
    })
    switch (row.outcome) {
      case 'not_found':
        throw new BrokerError('messageNotFound', 'Message not found')
      case 'already_settled':
        throw new BrokerError('conflict', `Message already consumed by group '${group}'`)
      case 'moved':
        break
    }
    if (row.lease_released && row.queue_name && row.partition_name) {
      app.broker.wake(tenant, row.queue_name, row.partition_name)
    }
    return { success: true, partitionId, transactionId, consumerGroup: group, dlq: true } satisfies MessageDlqAnswer
  })
}
