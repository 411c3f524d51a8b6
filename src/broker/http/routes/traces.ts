/** POST /api/v1/traces (http-api.md 5.8): client trace events on a message. */
import type { FastifyInstance } from 'fastify'
import { runQuery } from '../../db/pool.js'
import { describeDbFailure } from '../../db/pg-errors.js'
import { validationError } from '../../errors.js'
import {
  asObject,
  checkName,
  checkPayload,
  checkText,
  checkTransactionId,
  checkUuid,
  QUEUE_MODE_GROUP,
} from '../validation/rules.js'

const MAX_TRACE_NAMES = 32

function parseTraceNames(value: unknown): string[] {
  if (value === undefined || value === null) return []
  const list = typeof value === 'string' ? [value] : value
  if (!Array.isArray(list)) throw validationError('traceNames: must be a string or an array of strings')
  if (list.length > MAX_TRACE_NAMES) throw validationError(`traceNames: at most ${MAX_TRACE_NAMES} names`)
  return list.map((name, index) => {
    const text = checkText(name, `traceNames[${index}]`, 255)
    if (text.length === 0) throw validationError(`traceNames[${index}]: must be 1-255 characters`)
    return text
  })
}

export function registerTraceRoutes(app: FastifyInstance): void {
  app.post('/api/v1/traces', async (request) => {
    const body = asObject(request.body)
    if (body.transactionId === undefined || body.partitionId === undefined) {
      throw validationError('transactionId and partitionId are required')
    }
    if (body.data === undefined) throw validationError('data is required')
    const transactionId = checkTransactionId(body.transactionId, 'transactionId')
    const partitionId = checkUuid(body.partitionId, 'partitionId')
    checkPayload(body.data, 'data')
    const group =
      body.consumerGroup === undefined || body.consumerGroup === null
        ? QUEUE_MODE_GROUP
        : checkName(body.consumerGroup, 'consumerGroup')
    const eventType =
      body.eventType === undefined || body.eventType === null ? 'info' : checkText(body.eventType, 'eventType', 64)
    const workerId =
      body.workerId === undefined || body.workerId === null ? null : checkText(body.workerId, 'workerId', 255)
    const names = parseTraceNames(body.traceNames)
    try {
      const [row] = await runQuery<{ id: string }>(app.broker.pool, 'traceRecord', [
        partitionId,
        transactionId,
        group,
        eventType,
        JSON.stringify(body.data),
        workerId,
        names,
      ])
      if (!row) return { success: false, error: 'Message not found' }
      return { success: true, traceId: row.id }
    } catch (error) {
      request.log.error({ err: error }, 'trace failed')
      return { success: false, error: describeDbFailure(error) }
    }
  })
}
