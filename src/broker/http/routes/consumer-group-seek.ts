/**
 * Consumer-group seeks (docs/http-api.md, "Consumer groups", docs/semantics.md, "Seek"): a group's cursor moved on
 * every partition of a queue to the head or to a timestamp, or on one partition to the head. The work is one call of
 * queen.seek_consumer_group (008), which also releases the group's leases and forgets its per-message state there.
 */
import { IGNORE_BODY } from '../body-parsing.js'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { BrokerError, validationError } from '../../errors.js'
import { seekConsumerGroup, seekPartitionToEnd } from '../../store/consumer-group-seek.js'
import { tenantOf } from '../tenant.js'
import { asObject, checkName, checkQueueName, checkTimestamp } from '../validation/rules.js'
import type { ConsumerGroupSeekAnswer, PartitionSeekAnswer } from '../../../wire/index.js'

interface SeekParams {
  group?: unknown
  queue?: unknown
  partition?: unknown
}

/** What a queue seek asks for: the head, or the last message created at or before `timestamp`. */
type SeekTarget = { toEnd: true } | { toEnd: false; timestamp: Date }

function parseSeekBody(body: unknown): SeekTarget {
  const fields = asObject(body)
  if (fields.toEnd !== undefined && fields.toEnd !== null && typeof fields.toEnd !== 'boolean') {
    throw validationError('toEnd: must be a boolean')
  }
  // toEnd wins when both are sent, as in the reference.
  if (fields.toEnd === true) return { toEnd: true }
  if (fields.timestamp === undefined || fields.timestamp === null || fields.timestamp === '') {
    throw validationError("Must specify either 'toEnd': true or 'timestamp'")
  }
  return { toEnd: false, timestamp: checkTimestamp(fields.timestamp, 'timestamp') }
}

export function registerConsumerGroupSeekRoutes(app: FastifyInstance): void {
  // Parked pops of the group may now have messages (a seek backwards) or a released lease to take.
  const wake = (request: FastifyRequest, queue: string, partition: string | null) =>
    app.broker.waiters.wake(tenantOf(request), queue, partition)

  app.post('/api/v1/consumer-groups/:group/queues/:queue/seek', async (request) => {
    const params = request.params as SeekParams
    const group = checkName(params.group, 'group')
    const queue = checkQueueName(params.queue, 'queue')
    const target = parseSeekBody(request.body)
    const timestamp = target.toEnd ? null : target.timestamp
    const row = await seekConsumerGroup(app.broker.pool, {
      tenant: tenantOf(request),
      queue,
      group,
      toEnd: target.toEnd,
      timestamp,
    })
    if (!row?.queue_id) throw new BrokerError('queueNotFound', 'Queue not found')
    wake(request, queue, null)
    return {
      success: true,
      consumerGroup: group,
      queueName: queue,
      seekToEnd: target.toEnd,
      targetTimestamp: timestamp ? timestamp.toISOString() : null,
      partitionsUpdated: row.partitions_updated,
    } satisfies ConsumerGroupSeekAnswer
  })

  app.post('/api/v1/consumer-groups/:group/queues/:queue/partitions/:partition/seek', IGNORE_BODY, async (request) => {
    const params = request.params as SeekParams
    const group = checkName(params.group, 'group')
    const queue = checkQueueName(params.queue, 'queue')
    const partition = checkName(params.partition, 'partition')
    const row = await seekPartitionToEnd(app.broker.pool, { tenant: tenantOf(request), queue, group, partition })
    if (!row || row.partitions_updated === 0) throw new BrokerError('partitionNotFound', 'Partition not found')
    wake(request, queue, partition)
    return {
      success: true,
      consumerGroup: group,
      queueName: queue,
      partitionName: partition,
      updated: true,
      cursorMovedTo: row.cursor_moved_to,
    } satisfies PartitionSeekAnswer
  })
}
