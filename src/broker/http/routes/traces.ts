/**
 * Client trace events on messages: POST /api/v1/traces (docs/http-api.md, "Posting traces") and its reads ("Read
 * traces"), whose answers keep the reference's snake_case keys.
 */
import type { FastifyInstance } from 'fastify'
import { describeDbFailure } from '../../../platform/postgres/pg-errors.js'
import { validationError } from '../../errors.js'
import { tenantOf } from '../tenant.js'
import { readablePayload, rowIdentity } from '../../crypto/read-decryption.js'
import { listMessageTraces, listTraceNames, listTracesByName, recordTrace, type TraceRow } from '../../store/traces.js'
import { queryInteger, type Query } from '../validation/query.js'
import {
  asObject,
  checkName,
  checkPayload,
  checkText,
  checkTransactionId,
  checkUuid,
  QUEUE_MODE_GROUP,
} from '../validation/rules.js'
import type { MessageTracesAnswer, TraceEvent, TraceNamesAnswer } from '../../../wire/index.js'

const MAX_TRACE_NAMES = 32
/** Largest page of the trace listings. */
const MAX_TRACE_PAGE = 1000

function traceItem(row: TraceRow): TraceEvent {
  return {
    id: row.id,
    event_type: row.event_type,
    data: row.data,
    consumer_group: row.consumer_group,
    worker_id: row.worker_id,
    created_at: row.created_at.toISOString(),
    trace_names: row.trace_names,
  }
}

/** `limit` and `offset` of a trace listing. */
function tracePage(query: Query, defaultLimit: number): { limit: number; offset: number } {
  return {
    limit: queryInteger(query, 'limit', { min: 1, max: MAX_TRACE_PAGE }, defaultLimit),
    offset: queryInteger(query, 'offset', { min: 0, max: Number.MAX_SAFE_INTEGER }, 0),
  }
}

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
      const traceId = await recordTrace(app.broker.pool, {
        tenant: tenantOf(request),
        partitionId,
        transactionId,
        group,
        eventType,
        data: body.data,
        workerId,
        names,
      })
      if (traceId === undefined) return { success: false, error: 'Message not found' }
      return { success: true, traceId }
    } catch (error) {
      request.log.error({ err: error }, 'trace failed')
      return { success: false, error: describeDbFailure(error) }
    }
  })

  registerTraceReadRoutes(app)
}

/** The trace reads of docs/http-api.md, "Read traces". */
function registerTraceReadRoutes(app: FastifyInstance): void {
  app.get('/api/v1/traces/names', async (request) => {
    const page = tracePage(request.query as Query, 50)
    const rows = await listTraceNames(app.broker.pool, { tenant: tenantOf(request), ...page })
    return {
      trace_names: rows.map((row) => ({
        trace_name: row.trace_name,
        trace_count: row.trace_count,
        message_count: row.message_count,
        last_seen: row.last_seen.toISOString(),
      })),
      total: rows[0]?.total ?? 0,
      pagination: page,
    } satisfies TraceNamesAnswer
  })

  app.get('/api/v1/traces/by-name/:traceName', async (request) => {
    const name = checkText((request.params as { traceName?: unknown }).traceName, 'traceName', 255)
    if (name.length === 0) throw validationError('traceName: must be 1-255 characters')
    const page = tracePage(request.query as Query, 100)
    const tenant = tenantOf(request)
    const rows = await listTracesByName(app.broker.pool, { tenant, name, ...page })
    return {
      traces: rows.map((row) => {
        // `message_payload` is decrypted (docs/semantics.md, "Where payloads are decrypted"); null with
        // `message_payload_error` when it cannot be.
        const readable = readablePayload(
          app.broker.cipher,
          row.message_payload,
          row.message_is_encrypted === true,
          rowIdentity(tenant, row),
        )
        return {
          id: row.id,
          transaction_id: row.transaction_id,
          partition_id: row.partition_id,
          event_type: row.event_type,
          data: row.data,
          consumer_group: row.consumer_group,
          worker_id: row.worker_id,
          created_at: row.created_at.toISOString(),
          queue_name: row.queue_name,
          partition_name: row.partition_name,
          message_payload: readable.payload,
          ...(readable.error === undefined ? {} : { message_payload_error: readable.error }),
          trace_names: row.trace_names,
        }
      }),
      total: rows[0]?.total ?? 0,
      pagination: page,
    }
  })

  app.get('/api/v1/traces/:partitionId/:transactionId', async (request) => {
    const params = request.params as { partitionId?: unknown; transactionId?: unknown }
    const partitionId = checkUuid(params.partitionId, 'partitionId')
    const transactionId = checkTransactionId(params.transactionId, 'transactionId')
    const rows = await listMessageTraces(app.broker.pool, { tenant: tenantOf(request), partitionId, transactionId })
    return { traces: rows.map(traceItem) } satisfies MessageTracesAnswer
  })
}
