/** Query parameters of the pop routes (docs/http-api.md, "Pop from a queue"). */
import { validationError } from '../../errors.js'
import type { PopRequest } from '../../engine/pop-engine.js'
import type { BrokerConfig } from '../../config/broker-config.js'
import { queryBoolean, queryInteger, queryValue, type Query } from './query.js'
import { checkName, checkQueueName, checkText, checkTimestamp, QUEUE_MODE_GROUP } from './rules.js'

/** Longest long-poll `timeout` a pop may ask for (docs/http-api.md, "Validation at the edge"). */
export const MAX_POP_TIMEOUT_MS = 600_000

/** Validates a pop's path and query into a {@link PopRequest}. */
export function parsePopRequest(
  tenant: string,
  params: { queue?: unknown; partition?: unknown },
  query: Query,
  config: Pick<BrokerConfig, 'defaultSubscriptionMode' | 'maxPopBatch' | 'defaultBatchSize' | 'defaultTimeoutMs'>,
): PopRequest {
  const namespaced = params.queue === undefined
  const queue = namespaced ? '' : checkQueueName(params.queue, 'queue')
  let filter: PopRequest['filter']
  if (namespaced) {
    const namespace = queryValue(query, 'namespace')
    const task = queryValue(query, 'task')
    if (namespace === undefined && task === undefined) throw validationError('namespace or task is required')
    filter = {
      ...(namespace === undefined ? {} : { namespace: checkText(namespace, 'namespace', 255) }),
      ...(task === undefined ? {} : { task: checkText(task, 'task', 255) }),
    }
  }
  const partition = params.partition === undefined ? null : checkName(params.partition, 'partition')
  const groupRaw = queryValue(query, 'consumerGroup')
  const group = groupRaw === undefined ? QUEUE_MODE_GROUP : checkName(groupRaw, 'consumerGroup')

  let subscriptionMode: PopRequest['subscriptionMode'] = config.defaultSubscriptionMode === 'all' ? 'all' : 'new'
  let subscriptionFrom: Date | null = null
  const mode = queryValue(query, 'subscriptionMode')
  // As the reference does and the clients rely on (their docs send `from_beginning`): `new`/`new-only`
  // start at now, every other mode at the oldest message.
  if (mode !== undefined) subscriptionMode = mode === 'new' || mode === 'new-only' ? 'new' : 'all'
  const from = queryValue(query, 'subscriptionFrom')
  if (from !== undefined) {
    if (from.toLowerCase() === 'now') {
      subscriptionMode = 'new'
    } else {
      subscriptionMode = 'from'
      subscriptionFrom = checkTimestamp(from, 'subscriptionFrom')
    }
  }

  return {
    tenant,
    queue,
    partition,
    group,
    batch: queryInteger(query, 'batch', { min: 1, max: config.maxPopBatch }, config.defaultBatchSize),
    maxPartitions: queryInteger(query, 'partitions', { min: 1, max: 1000 }, 1),
    wait: queryBoolean(query, 'wait', false),
    timeoutMs: queryInteger(query, 'timeout', { min: 0, max: MAX_POP_TIMEOUT_MS }, config.defaultTimeoutMs),
    autoAck: queryBoolean(query, 'autoAck', false),
    subscriptionMode,
    subscriptionFrom,
    ...(filter ? { filter } : {}),
  }
}
