/** POST /api/v1/transaction and POST /api/v1/lease/:leaseId/extend (docs/http-api.md, "Transaction", "Lease extend"). */
import type { Timestamp } from './common.js'

/** One operation's result, in operation order (a push operation gives one per pushed item). */
export type TransactionOpResult =
  | {
      index: number
      type: 'push'
      success: true
      transactionId: string
      messageId: string
      partitionId: string
      queueName: string
      duplicate: boolean
    }
  | {
      index: number
      type: 'ack'
      success: boolean
      transactionId: string
      error: string | null
      dlq: boolean
      alreadyAcked: boolean
    }

/** POST /api/v1/transaction: committed, or rolled back with the error and the results before it. */
export interface TransactionAnswer {
  /** This transaction's own id. */
  transactionId: string
  success: boolean
  error?: string
  results: TransactionOpResult[]
}

/** The one item of POST /api/v1/lease/:leaseId/extend's array. */
export interface LeaseExtendResult {
  index: number
  leaseId: string
  success: boolean
  /** Null, `Lease not found`, `Lease already expired` or a database failure. */
  error: string | null
  /** The earliest new expiry. */
  expiresAt: Timestamp | null
}

/** POST /api/v1/lease/:leaseId/extend. */
export type LeaseExtendAnswer = [LeaseExtendResult]
