/** One ack result on the wire (docs/http-api.md, "Ack" and "Ack batch"). */
import type { AckOutcome } from '../../engine/ack-engine.js'
import type { AckResultItem } from '../../../wire/index.js'

/** The wire object of one ack outcome, `index` 0-based within the request. */
export function ackResultItem(outcome: AckOutcome, index: number): AckResultItem {
  return {
    index,
    transactionId: outcome.transactionId,
    success: outcome.success,
    error: outcome.error,
    queueName: outcome.queueName,
    partitionName: outcome.partitionName,
    leaseReleased: outcome.leaseReleased,
    dlq: outcome.dlq,
    alreadyAcked: outcome.alreadyAcked,
  }
}
