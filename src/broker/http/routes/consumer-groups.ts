/**
 * Consumer groups (http-api.md section 8): listing, lagging pairs, describe, delete (everywhere or on one
 * queue) and the subscription rewrite. Seeks are in consumer-group-seek.ts. Lag is computed live by
 * queen.consumer_lag (008), exact per (partition, group) (semantics.md 8.3).
 */
import { IGNORE_BODY } from '../body-parsing.js'
import type { FastifyInstance } from 'fastify'
import { executeQuery, runQuery } from '../../db/pool.js'
import { validationError } from '../../errors.js'
import { tenantOf } from '../tenant.js'
import { queryBoolean, queryInteger, type Query } from '../validation/query.js'
import { asObject, checkName, checkQueueName, checkTimestamp } from '../validation/rules.js'

/** A group whose oldest unsettled message is older than this is `Lagging` (http-api.md section 8). */
const LAGGING_AFTER_SECONDS = 300
/** Default threshold of GET /consumer-groups/lagging. */
const DEFAULT_MIN_LAG_SECONDS = 3600

interface GroupListRow {
  consumer_group: string
  queue_name: string
  members: number
  partitions_with_lag: number
  total_lag: number
  max_time_lag: number
  ever_consumed: boolean
  subscription_mode: string | null
  subscription_start: Date | null
  subscription_created_at: Date | null
}

interface LaggingRow {
  consumer_group: string
  queue_name: string
  partition_name: string
  partition_id: string
  offset_lag: number
  time_lag_seconds: number
  lag_hours: number
  oldest_unsettled_at: Date
  last_consumed_at: Date | null
}

interface DescribeRow {
  queue_name: string
  partition_name: string
  last_consumed_at: Date | null
  total_consumed: number
  offset_lag: number
  time_lag_seconds: number
  lease_active: boolean
}

const iso = (value: Date | null) => (value ? value.toISOString() : null)

function groupParam(params: unknown): string {
  return checkName((params as { group?: unknown }).group, 'group')
}

function stateOf(row: GroupListRow): 'Lagging' | 'Stable' | 'Dead' {
  if (row.max_time_lag > LAGGING_AFTER_SECONDS) return 'Lagging'
  return row.ever_consumed ? 'Stable' : 'Dead'
}

export function registerConsumerGroupRoutes(app: FastifyInstance): void {
  app.get('/api/v1/consumer-groups', async (request) => {
    const rows = await runQuery<GroupListRow>(app.broker.pool, 'consumerGroupList', [tenantOf(request)])
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
    }))
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
    const rows = await runQuery<LaggingRow>(app.broker.pool, 'consumerGroupLagging', [tenantOf(request), minLagSeconds])
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
    }))
  })

  app.get('/api/v1/consumer-groups/:group', async (request) => {
    const group = groupParam(request.params)
    const rows = await runQuery<DescribeRow>(app.broker.pool, 'consumerGroupDescribe', [tenantOf(request), group])
    const queues = new Map<string, { partitions: object[] }>()
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
    return Object.fromEntries(queues)
  })

  app.delete('/api/v1/consumer-groups/:group', IGNORE_BODY, async (request) => {
    const group = groupParam(request.params)
    const deleteMetadata = queryBoolean(request.query as Query, 'deleteMetadata', true)
    const [row] = await runQuery<{ deleted_partitions: number; deleted_subscriptions: number }>(
      app.broker.pool,
      'consumerGroupDelete',
      [tenantOf(request), group, null, deleteMetadata],
    )
    return {
      success: true,
      consumerGroup: group,
      deletedPartitions: row?.deleted_partitions ?? 0,
      metadataDeleted: deleteMetadata,
    }
  })

  app.delete('/api/v1/consumer-groups/:group/queues/:queue', IGNORE_BODY, async (request) => {
    const group = groupParam(request.params)
    const queue = checkQueueName((request.params as { queue?: unknown }).queue, 'queue')
    const deleteMetadata = queryBoolean(request.query as Query, 'deleteMetadata', true)
    const [row] = await runQuery<{ deleted_partitions: number; deleted_subscriptions: number }>(
      app.broker.pool,
      'consumerGroupDelete',
      [tenantOf(request), group, queue, deleteMetadata],
    )
    return {
      success: true,
      consumerGroup: group,
      queueName: queue,
      deletedPartitions: row?.deleted_partitions ?? 0,
      metadataDeleted: deleteMetadata,
    }
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
    const rowsUpdated = await executeQuery(app.broker.pool, 'consumerGroupSubscription', [
      tenantOf(request),
      group,
      timestamp,
    ])
    return { success: true, consumerGroup: group, newTimestamp: timestamp.toISOString(), rowsUpdated }
  })
}
