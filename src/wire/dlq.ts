/** GET /api/v1/dlq (docs/http-api.md, "List the dead-letter queue"). */
import type { Pagination, Timestamp } from './common.js'

/** One dead-lettered message; `data` is null with `dataError` when it cannot be decrypted. */
export interface DlqMessage {
  id: string
  transactionId: string
  partitionId: string
  queue: string
  partition: string
  /** The group that gave up on it (`__QUEUE_MODE__` for queue mode). */
  consumerGroup: string
  errorMessage: string | null
  retryCount: number
  data: unknown
  dataError?: string
  producerSub: string | null
  createdAt: Timestamp
  failedAt: Timestamp
}

/** GET /api/v1/dlq. */
export interface DlqAnswer {
  messages: DlqMessage[]
  total: number
  pagination: Pagination
}
