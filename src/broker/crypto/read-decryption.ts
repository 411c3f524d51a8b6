/**
 * Payloads on the read routes (docs/semantics.md, "Where payloads are decrypted"): message get (docs/http-api.md, "Get
 * a message"), DLQ listing ("List the dead-letter queue") and traces by name ("Read traces") answer plaintext.
 * Decryption follows the row's `is_encrypted` flag, never the payload's shape. When a payload cannot be decrypted the
 * route answers `null` with the reason next to it (`payloadError` for message get, `dataError` for the DLQ,
 * `message_payload_error` for traces): `encryption key unavailable` (no key, or another key id), or `decryption failed:
 * ...` for a ciphertext that does not authenticate. Reads never dead-letter and never count encryption failures: those
 * belong to the data plane (a listing shown twice must not count a tampered row twice).
 */
import {
  DecryptionFailedError,
  decryptPayload,
  KeyUnavailableError,
  type PayloadCipher,
  type PayloadIdentity,
} from './payload-cipher.js'

/** Shown instead of a payload this broker has no key for. */
export const KEY_UNAVAILABLE_READ_ERROR = 'encryption key unavailable'

/** The names a read route's query returns with every message row. */
export interface MessageRowNames {
  queue_name: string
  partition_name: string
  transaction_id: string
}

/** The identity a row's ciphertext is bound to (docs/semantics.md, "Encryption: what and how"). */
export function rowIdentity(tenant: string, row: MessageRowNames): PayloadIdentity {
  return { tenant, queue: row.queue_name, partition: row.partition_name, transactionId: row.transaction_id }
}

/** A payload as a read route answers it. */
export interface ReadablePayload {
  payload: unknown
  /** Why `payload` is null although the message has one. */
  error?: string
}

/** The plaintext of a stored payload (parsed JSON), or null and why. */
export function readablePayload(
  cipher: PayloadCipher | undefined,
  stored: unknown,
  isEncrypted: boolean,
  identity: PayloadIdentity,
): ReadablePayload {
  if (!isEncrypted || stored === null || stored === undefined) return { payload: stored ?? null }
  try {
    return { payload: JSON.parse(decryptPayload(cipher, stored, identity)) as unknown }
  } catch (error) {
    if (error instanceof KeyUnavailableError) return { payload: null, error: KEY_UNAVAILABLE_READ_ERROR }
    if (error instanceof DecryptionFailedError) return { payload: null, error: error.message }
    throw error
  }
}
