/** Writing a queue (docs/http-api.md, "Configure a queue", "Delete a queue" and "Clear a queue"). */

/** POST /api/v1/configure: the queue as configured, its options echoed as sent. */
export interface ConfigureAnswer {
  configured: true
  queueId: string
  /** The queue's `Default` partition. */
  partitionId: string
  queue: string
  namespace: string
  task: string
  options: Record<string, unknown>
  /** Legacy keys that were reported and not stored; absent when there were none. */
  ignored?: string[]
}

/** DELETE /api/v1/resources/queues/:queue (deleting an unknown queue is a success too). */
export interface QueueDeleteAnswer {
  deleted: true
  queue: string
  existed: boolean
}

/** DELETE /api/v1/queues/:queue/clear. */
export interface QueueClearAnswer {
  success: true
  queue: string
  deletedMessages: number
}
