/**
 * Consumer groups (docs/http-api.md, "Consumer groups"): listing, lagging pairs, describe, delete (everywhere or on one
 * queue) and the subscription rewrite. Seeks are in consumer-group-seek.ts. Lag is computed live by
 * queen.consumer_lag (008), exact per (partition, group) (docs/semantics.md, "Lag").
 */
import { IGNORE_BODY } from '../body-parsing.js'
import type { FastifyInstance } from 'fastify'
import { validationError } from '../../errors.js'
import {
  deleteConsumerGroup,
  describeConsumerGroup,
  listConsumerGroups,
  listLaggingPartitions,
  rewriteSubscriptionStart,
  type ConsumerGroupRow,
} from '../../store/consumer-groups.js'
import { tenantOf } from '../tenant.js'
import { queryBoolean, queryInteger, type Query } from '../validation/query.js'
import { asObject, checkName, checkQueueName, checkTimestamp } from '../validation/rules.js'
import type { ConsumerGroupDeleteAnswer, ConsumerGroupDetailAnswer, ConsumerGroupRow as ConsumerGroupWire, GroupPartition, LaggingPartitionRow } from '../../../wire/index.js'

/** A group whose oldest unsettled message is older than this is `Lagging` (docs/http-api.md, "Consumer groups"). */
const LAGGING_AFTER_SECONDS = 300
/** Default threshold of GET /consumer-groups/lagging. */
const DEFAULT_MIN_LAG_SECONDS = 3600

const iso = (value: Date | null) => (value ? value.toISOString() : null)

function groupParam(params: unknown): string {
  return checkName((params as { group?: unknown }).group, 'group')
}

function stateOf(row: ConsumerGroupRow): 'Lagging' | 'Stable' | 'Dead' {
  if (row.max_time_lag > LAGGING_AFTER_SECONDS) return 'Lagging'
  return row.ever_consumed ? 'Stable' : 'Dead'
}

export function registerConsumerGroupRoutes(app: FastifyInstance): void {
  app.get('/api/v1/consumer-groups', async (request) => {
    const rows = await listConsumerGroups(app.broker.pool, { tenant: tenantOf(request) })
    return rows.map((row) => ({
      name: row.consumer_group,
      topics: [row.queue_name],
      queueName: row.queue_name,
      members: row.members,
      partitionsWithLag: row.partitions_with_lag,
      totalLag: row.total_lag,
      maxTimeLag: row.max_time_lag,
      state: stateOf(row),
      subscriptionMode: row.subscription_mode,
      subscriptionTimestamp: iso(row.subscription_start),
      subscriptionCreatedAt: iso(row.subscription_created_at),
    })) satisfies ConsumerGroupWire[]
  })

  // A group literally named `lagging` cannot be described: the router prefers this static path, as the
  // reference's did.
  app.get('/api/v1/consumer-groups/lagging', async (request) => {
    const minLagSeconds = queryInteger(
      request.query as Query,
      'minLagSeconds',
      { min: 0, max: 2_147_483_647 },
      DEFAULT_MIN_LAG_SECONDS,
    )
    const rows = await listLaggingPartitions(app.broker.pool, { tenant: tenantOf(request), minLagSeconds })
    return rows.map((row) => ({
      consumer_group: row.consumer_group,
      queue_name: row.queue_name,
      partition_name: row.partition_name,
      partition_id: row.partition_id,
      // Leases record no worker identity (a lease is a pop's token, not a worker's), so there is none to show.
      worker_id: null,
      offset_lag: row.offset_lag,
      time_lag_seconds: row.time_lag_seconds,
      lag_hours: row.lag_hours,
      oldest_unconsumed_at: row.oldest_unsettled_at.toISOString(),
      last_consumed_at: iso(row.last_consumed_at),
    })) satisfies LaggingPartitionRow[]
  })

  app.get('/api/v1/consumer-groups/:group', async (request) => {
    const group = groupParam(request.params)
    const rows = await describeConsumerGroup(app.broker.pool, { tenant: tenantOf(request), group })
    const queues = new Map<string, { partitions: GroupPartition[] }>()
    for (const row of rows) {
      let entry = queues.get(row.queue_name)
      if (!entry) {
        entry = { partitions: [] }
        queues.set(row.queue_name, entry)
      }
      entry.partitions.push({
        partition: row.partition_name,
        workerId: null,
        lastConsumedAt: iso(row.last_consumed_at),
        totalConsumed: row.total_consumed,
        offsetLag: row.offset_lag,
        timeLagSeconds: row.time_lag_seconds,
        leaseActive: row.lease_active,
      })
    }
    // fromEntries defines own properties, so a queue named `__proto__` (a valid name) stays a key.
    return Object.fromEntries(queues) satisfies ConsumerGroupDetailAnswer
  })

  app.delete('/api/v1/consumer-groups/:group', IGNORE_BODY, async (request) => {
    const group = groupParam(request.params)
    const deleteMetadata = queryBoolean(request.query as Query, 'deleteMetadata', true)
    const deletion = await deleteConsumerGroup(app.broker.pool, {
      tenant: tenantOf(request),
      group,
      queue: null,
      deleteMetadata,
    })
    return {
      success: true,
      consumerGroup: group,
      deletedPartitions: deletion.deletedPartitions,
      metadataDeleted: deleteMetadata,
    } satisfies ConsumerGroupDeleteAnswer
  })

  app.delete('/api/v1/consumer-groups/:group/queues/:queue', IGNORE_BODY, async (request) => {
    const group = groupParam(request.params)
    const queue = checkQueueName((request.params as { queue?: unknown }).queue, 'queue')
    const deleteMetadata = queryBoolean(request.query as Query, 'deleteMetadata', true)
    const deletion = await deleteConsumerGroup(app.broker.pool, {
      tenant: tenantOf(request),
      group,
      queue,
      deleteMetadata,
    })
    return {
      success: true,
      consumerGroup: group,
      queueName: queue,
      deletedPartitions: deletion.deletedPartitions,
      metadataDeleted: deleteMetadata,
    } satisfies ConsumerGroupDeleteAnswer
  })

  app.post('/api/v1/consumer-groups/:group/subscription', async (request) => {
    const group = groupParam(request.params)
    const body = asObject(request.body)
    if (
      body.subscriptionTimestamp === undefined ||
      body.subscriptionTimestamp === null ||
      body.subscriptionTimestamp === ''
    ) {
      throw validationError('Missing subscriptionTimestamp in request body')
    }
    const timestamp = checkTimestamp(body.subscriptionTimestamp, 'subscriptionTimestamp')
    const rowsUpdated = await rewriteSubscriptionStart(app.broker.pool, {
      tenant: tenantOf(request),
      group,
      start: timestamp,
    })
    return { success: true, consumerGroup: group, newTimestamp: timestamp.toISOString(), rowsUpdated }
  })
}
