/** POST /api/v1/push (docs/http-api.md, "Push" and "Push result"). */

/** An item stored: its message and partition. */
export interface PushQueued {
  index: number
  transaction_id: string
  status: 'queued'
  message_id: string
  partition_id: string
  trace_id: string | null
  queueName: string
}

/** An item inside the dedup window: `message_id` is the first message's. */
export interface PushDuplicate {
  index: number
  transaction_id: string
  status: 'duplicate'
  message_id: string
  partition_id: string
  queueName: string
}

/** An item written to the spool; the transaction id under both spellings, as the clients read it. */
export interface PushBuffered {
  index: number
  transaction_id: string
  status: 'buffered'
  queue: string
  partition: string
  transactionId: string
  queueName: string
}

/** An item refused on its own. */
export interface PushFailed {
  index: number
  transaction_id: string
  status: 'failed'
  error: string
  queueName: string
}

/** One push result, `index` 0-based within the request (also in transactions and stream cycles). */
export type PushResultItem = PushQueued | PushDuplicate | PushBuffered | PushFailed

/** POST /api/v1/push: one result per input item, in input order (503 when every item failed unstored). */
export type PushAnswer = PushResultItem[]
