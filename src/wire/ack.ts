/** POST /api/v1/ack and /api/v1/ack/batch (docs/http-api.md, "Ack", "Ack batch" and "Ack result"). */

/** One ack result, `index` 0-based within the request. */
export interface AckResultItem {
  index: number
  transactionId: string
  success: boolean
  /** Null on success. */
  error: string | null
  queueName: string | null
  partitionName: string | null
  /** True when this ack released the lease, false when it did not, null when no lease was involved. */
  leaseReleased: boolean | null
  dlq: boolean
  alreadyAcked: boolean
}

/** A database failure of the whole request (still a 200). */
export interface AckFailureAnswer {
  success: false
  error: string
}

/** POST /api/v1/ack (a one-element array) and /api/v1/ack/batch (one per item, in request order). */
export type AckAnswer = AckResultItem[] | AckFailureAnswer
