/** Message browsing (docs/http-api.md, "List messages"). */
import type { Timestamp } from './common.js'

/** A message's state for one consumer group (docs/semantics.md, "Status counters"). */
export type MessageStatus = 'pending' | 'processing' | 'completed' | 'dead_letter'

/** How a queue is consumed: by the queue-mode group, by named groups, both, or not yet. */
export type ConsumptionMode = 'queue' | 'bus' | 'hybrid' | 'none'

/** Where a message is and its state, in both the list and the detail. */
export interface MessagePlace {
  id: string
  transactionId: string
  partitionId: string
  queuePath: string
  queue: string
  partition: string
  namespace: string
  task: string
  status: MessageStatus
}

/** One row of GET /api/v1/messages. */
export interface MessageListItem extends MessagePlace {
  queueStatus: MessageStatus
  busStatus: { consumedBy: number; totalGroups: number }
  traceId: string | null
  producerSub: string | null
  queuePriority: number
  createdAt: Timestamp
  leaseExpiresAt: Timestamp | null
}

/** GET /api/v1/messages. */
export interface MessageListAnswer {
  messages: MessageListItem[]
  mode: { hasQueueMode: boolean; busGroupsCount: number; type: ConsumptionMode }
}

/** GET /api/v1/messages/:partitionId/:transactionId. */
export interface MessageDetailAnswer extends MessagePlace {
  /** Decrypted; null with `payloadError` when it cannot be. */
  payload: unknown
  payloadError?: string
  isEncrypted: boolean
  traceId: string | null
  producerSub: string | null
  createdAt: Timestamp
  errorMessage: string | null
  retryCount: number
  leaseExpiresAt: Timestamp | null
  queueConfig: { leaseTime: number; retryLimit: number; retryDelay: number; ttl: null; priority: number }
  mode: { hasQueueMode: boolean; busGroupsCount: number; consumedByGroups: number; type: ConsumptionMode }
  consumerGroups: { name: string; consumed: boolean; leaseExpiresAt: string | null }[]
}
