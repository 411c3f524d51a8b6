/**
 * The streaming SDK's routes (docs/http-api.md, "Streams", snake_case JSON): POST /streams/v1/queries,
 * /streams/v1/cycle and /streams/v1/state/get. Data plane: after validation every answer is 200 with the
 * outcome in the body, except the 409 of a config-hash mismatch (docs/http-api.md, "Status codes on the data plane").
 */
import type { FastifyInstance } from 'fastify'
import { describeDbFailure } from '../../../platform/postgres/pg-errors.js'
import type { StreamCycleAnswer } from '../../engine/streams-engine.js'
import { BrokerError } from '../../errors.js'
import { tenantOf } from '../tenant.js'
import { producerSubOf } from '../../auth/identity.js'
import { parseStreamCycle, parseStreamRegistration, parseStreamStateQuery } from '../validation/streams-body.js'
import { checkNamesPerRequest } from '../validation/request-ceilings.js'
import { pushResultItem } from '../envelopes/push-result.js'

function cycleBody(queryId: string, partitionId: string, answer: StreamCycleAnswer): Record<string, unknown> {
  return {
    success: answer.success,
    ...(answer.success ? {} : { error: answer.error ?? 'cycle failed' }),
    query_id: queryId,
    partition_id: partitionId,
    queueName: answer.queueName,
    state_ops_applied: answer.stateOpsApplied,
    push_results: answer.pushResults.map(pushResultItem),
    ack_result: answer.ackResult
      ? {
          success: true,
          count: answer.ackResult.count,
          lease_released: answer.ackResult.leaseReleased,
          dlq: answer.ackResult.dlq,
        }
      : null,
  }
}

export function registerStreamRoutes(app: FastifyInstance): void {
  const broker = app.broker
  const engine = broker.streams

  app.post('/streams/v1/queries', async (request, reply) => {
    const registration = parseStreamRegistration(request.body)
    try {
      const answer = await engine.register(tenantOf(request), registration)
      if (answer.outcome === 'hash_mismatch') {
        return reply
          .code(409)
          .send({ success: false, query_id: answer.queryId, name: registration.name, error: answer.error })
      }
      return {
        success: true,
        query_id: answer.queryId,
        name: registration.name,
        config_hash: registration.configHash,
        fresh: answer.fresh,
        reset: answer.reset,
      }
    } catch (error) {
      request.log.error({ err: error }, 'stream query registration failed')
      return { success: false, error: describeDbFailure(error) }
    }
  })

  app.post('/streams/v1/cycle', async (request) => {
    const cycle = parseStreamCycle(request.body, broker.config.maxBatchItems, producerSubOf(request))
    checkNamesPerRequest(cycle.pushItems, broker.config, 'push_items')
    try {
      const answer = await engine.cycle(tenantOf(request), cycle)
      if (!answer.success) request.log.info({ error: answer.error }, 'stream cycle rolled back')
      return cycleBody(cycle.queryId, cycle.partitionId, answer)
    } catch (error) {
      request.log.error({ err: error }, 'stream cycle failed')
      return cycleBody(cycle.queryId, cycle.partitionId, {
        success: false,
        error: describeDbFailure(error),
        queueName: null,
        stateOpsApplied: 0,
        pushResults: [],
        ackResult: null,
      })
    }
  })

  app.post('/streams/v1/state/get', async (request, reply) => {
    let query
    try {
      query = parseStreamStateQuery(request.body)
    } catch (error) {
      // This route's 400 carries its usual keys (docs/http-api.md, "Streams").
      if (error instanceof BrokerError) return reply.code(400).send({ success: false, error: error.message, rows: [] })
      throw error
    }
    try {
      const answer = await engine.getState(tenantOf(request), query)
      return answer.success ? answer : { ...answer, rows: [] }
    } catch (error) {
      request.log.error({ err: error }, 'stream state read failed')
      return { success: false, error: describeDbFailure(error), rows: [] }
    }
  })
}
