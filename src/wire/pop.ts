/** The pop routes (docs/http-api.md, "Popped message" and "Pop answer"). */
import type { Timestamp } from './common.js'

/** One element of a pop answer's `messages`. */
export interface PoppedMessage {
  id: string
  transactionId: string
  traceId: string | null
  /** The payload, decrypted for an encrypted queue. */
  data: unknown
  producerSub: string | null
  /** Microsecond UTC timestamp. */
  createdAt: Timestamp
  partitionId: string
  partition: string
  /** This pop's lease, shared by all its messages; '' with autoAck. */
  leaseId: string
  consumerGroup: string
  queue: string
  retryCount: number
}

/** Messages found: `partition` and `partitionId` are the first partition's. */
export interface PopMessagesAnswer {
  success: true
  queue: string
  partition: string | null
  partitionId: string | null
  leaseId: string
  consumerGroup: string
  messages: PoppedMessage[]
  /** The partitions that gave messages. */
  partitionsClaimed: number
}

/** A long-poll that reached its deadline, or nothing to deliver right away. */
export interface PopEmptyAnswer {
  success: true
  queue: string
  partition: string
  partitionId: null
  leaseId: null
  consumerGroup: string
  messages: []
}

/** The named partition is inside its windowBuffer. */
export interface PopWindowBufferAnswer {
  success: true
  queue: string
  partition: string | null
  partitionId: string | null
  leaseId: ''
  consumerGroup: string
  messages: []
  windowBufferActive: true
}

/** Nothing popped, with the reason: no_available_partition, partition_not_found, lease_held or a failure. */
export interface PopRefusedAnswer {
  success: false
  error: string
  messages: []
}

/** GET /api/v1/pop, /api/v1/pop/queue/:queue[/partition/:partition] (a 204 without a body under pop-maintenance). */
export type PopAnswer = PopMessagesAnswer | PopEmptyAnswer | PopWindowBufferAnswer | PopRefusedAnswer
