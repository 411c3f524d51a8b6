/** What a push stores: the item the edge validated, and what the broker adds before storing it. */

/** One validated push item; the transaction id is generated at ingress when the client sent none. */
export interface PushItemInput {
  queue: string
  partition: string
  payload: unknown
  transactionId: string
  /** True when the broker generated the transaction id (no earlier message can carry it). */
  generatedTransactionId: boolean
  traceId: string | null
}

/** A push item ready for storage. */
export interface PushItem extends PushItemInput {
  /** JWT `sub` of the producer, or null without auth. */
  producerSub: string | null
  /**
   * Set by the encryption step: `payload` is the ciphertext object of an encrypted queue (docs/semantics.md,
   * "Encryption at rest").
   */
  encrypted?: boolean
}
