/** Acting on one message (docs/http-api.md, "Delete a message", "Retry a message" and "Dead-letter a message"). */

/** DELETE /api/v1/messages/:partitionId/:transactionId. */
export interface MessageDeleteAnswer {
  success: boolean
  partitionId: string
  transactionId: string
  message: string
}

/** POST /api/v1/messages/:partitionId/:transactionId/retry. */
export interface MessageRetryAnswer {
  success: true
  partitionId: string
  transactionId: string
  /** The groups the message was requeued for. */
  consumerGroups: string[]
  requeued: number
  /** Present when the retry pushed a copy under a new transaction id. */
  newTransactionId?: string
}

/** POST /api/v1/messages/:partitionId/:transactionId/dlq. */
export interface MessageDlqAnswer {
  success: true
  partitionId: string
  transactionId: string
  consumerGroup: string
  dlq: true
}
