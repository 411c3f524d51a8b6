/** One push result on the wire (docs/http-api.md, "Push result"), shared by /push, transactions and stream cycles. */
import type { PushOutcome } from '../../engine/push-engine.js'
import type { PushResultItem } from '../../../wire/index.js'

/** The wire object of one push result (docs/http-api.md, "Push result"), `index` 0-based within the request. */
export function pushResultItem(outcome: PushOutcome, index: number): PushResultItem {
  switch (outcome.status) {
    case 'queued':
      return {
        index,
        transaction_id: outcome.transactionId,
        status: 'queued',
        message_id: outcome.messageId,
        partition_id: outcome.partitionId,
        trace_id: outcome.traceId,
        queueName: outcome.queue,
      }
    case 'duplicate':
      return {
        index,
        transaction_id: outcome.transactionId,
        status: 'duplicate',
        message_id: outcome.messageId,
        partition_id: outcome.partitionId,
        queueName: outcome.queue,
      }
    case 'buffered':
      return {
        index,
        transaction_id: outcome.transactionId,
        status: 'buffered',
        queue: outcome.queue,
        partition: outcome.partition,
        transactionId: outcome.transactionId,
        queueName: outcome.queue,
      }
    case 'failed':
      return {
        index,
        transaction_id: outcome.transactionId,
        status: 'failed',
        error: outcome.error,
        queueName: outcome.queue,
      }
  }
}
