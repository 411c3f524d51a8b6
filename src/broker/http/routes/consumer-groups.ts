/**
 * Consumer groups: DELETE /api/v1/consumer-groups/:group and POST .../:group/subscription
 * (http-api.md section 8). Listing, lag and seeks come with the admin surface.
 */
import { IGNORE_BODY } from '../body-parsing.js'
import type { FastifyInstance } from 'fastify'
import { executeQuery, runQuery } from '../../db/pool.js'
import { validationError } from '../../errors.js'
import { tenantOf } from '../tenant.js'
import { queryBoolean, type Query } from '../validation/query.js'
import { asObject, checkName, checkTimestamp } from '../validation/rules.js'

export function registerConsumerGroupRoutes(app: FastifyInstance): void {
  app.delete('/api/v1/consumer-groups/:group', IGNORE_BODY, async (request) => {
    const group = checkName((request.params as { group?: unknown }).group, 'group')
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

  app.post('/api/v1/consumer-groups/:group/subscription', async (request) => {
    const group = checkName((request.params as { group?: unknown }).group, 'group')
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
