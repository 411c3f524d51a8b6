/** The pop answer on the wire (http-api.md 4.1, 4.2): the envelope of each {@link PopOutcome}. */
import type { PopOutcome, PoppedMessage, PopRequest } from '../../engine/pop-engine.js'
import { RawJson } from '../raw-json.js'

/** The JSON body of a pop outcome; `undefined` for a 204 (pop-maintenance). */
export function popEnvelope(request: PopRequest, outcome: PopOutcome): Record<string, unknown> | undefined {
  switch (outcome.kind) {
    case 'paused':
      return undefined
    case 'refused':
      return { success: false, error: outcome.error, messages: [] }
    case 'empty':
      return {
        success: true,
        queue: request.queue,
        partition: request.partition ?? '',
        partitionId: null,
        leaseId: null,
        consumerGroup: request.group,
        messages: [],
      }
    case 'windowBuffer':
      return {
        success: true,
        queue: request.queue,
        partition: outcome.partition,
        partitionId: outcome.partitionId,
        leaseId: '',
        consumerGroup: request.group,
        messages: [],
        windowBufferActive: true,
      }
    case 'messages':
      return {
        success: true,
        queue: outcome.queue,
        partition: outcome.partition,
        partitionId: outcome.partitionId,
        leaseId: outcome.leaseId,
        consumerGroup: outcome.group,
        messages: new RawJson(messagesJson(outcome.messages, outcome.leaseId, outcome.group)),
        partitionsClaimed: outcome.partitionsClaimed,
      }
  }
}

/**
 * `messages[]` of a pop answer (http-api.md 4.1) as JSON text, written directly: popped payloads arrive as
 * JSON text, and building an object per message only for JSON.stringify to walk it again was the largest
 * share of the broker's CPU in a drain after garbage collection. Ids, lease ids and timestamps come from
 * PostgreSQL in fixed formats that need no escaping; every other string goes through JSON.stringify.
 */
function messagesJson(rows: PoppedMessage[], leaseId: string, group: string): string {
  const groupJson = JSON.stringify(group)
  let queue: string | undefined
  let queueJson = ''
  let partition: string | null = null
  let partitionJson = ''
  const parts: string[] = []
  for (const row of rows) {
    if (row.queue !== queue) {
      queue = row.queue
      queueJson = JSON.stringify(queue)
    }
    if (row.partition_name !== partition) {
      partition = row.partition_name
      partitionJson = JSON.stringify(partition)
    }
    const data = typeof row.payload === 'string' ? row.payload : (JSON.stringify(row.payload) ?? 'null')
    parts.push(
      `{"id":"${row.message_id}","transactionId":${JSON.stringify(row.transaction_id)},` +
        `"traceId":${row.trace_id === null ? 'null' : `"${row.trace_id}"`},"data":${data},` +
        `"producerSub":${JSON.stringify(row.producer_sub)},"createdAt":"${row.created_at}",` +
        `"partitionId":"${row.partition_id}","partition":${partitionJson},"leaseId":"${leaseId}",` +
        `"consumerGroup":${groupJson},"queue":${queueJson},"retryCount":${row.retry_count ?? 0}}`,
    )
  }
  return `[${parts.join(',')}]`
}
