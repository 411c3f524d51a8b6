/**
 * Retry of a dead letter whose original retention already deleted (docs/http-api.md, "Retry a message"): the DLQ
 * payload copy is stored again as a new message with a new transaction id. An encrypted copy is bound to the old
 * transaction id (docs/semantics.md, "Encryption: what and how"), so it is sealed again for the new one inside the
 * retry's transaction, before any pop can see it. Without a usable key the retry is refused (409) and rolled back: the
 * entry stays in the DLQ, rather than becoming a message no pop could ever decrypt.
 */
import type pg from 'pg'
import { executeQuery, runQuery } from '../db/run-query.js'
import { BrokerError } from '../errors.js'
import { decryptPayload, KeyUnavailableError, type PayloadCipher } from './payload-cipher.js'

/** What the retry statement answered for a copy it stored again. */
export interface RetriedCopy {
  tenant: string
  partitionId: string
  queue: string
  partition: string
  /** The dead letter's transaction id (the one its ciphertext is bound to). */
  transactionId: string
  newTransactionId: string
}

/** Seals an encrypted retried copy for its new transaction id; call inside the retry's transaction. */
export async function resealRetriedCopy(
  client: pg.ClientBase,
  cipher: PayloadCipher | undefined,
  copy: RetriedCopy,
): Promise<void> {
  const [row] = await runQuery<{ position: number; payload: unknown; is_encrypted: boolean }>(
    client,
    'messageRetriedCopy',
    [copy.partitionId, copy.newTransactionId],
  )
  if (!row?.is_encrypted) return
  const identity = { tenant: copy.tenant, queue: copy.queue, partition: copy.partition }
  let plaintext: string
  try {
    plaintext = decryptPayload(cipher, row.payload, { ...identity, transactionId: copy.transactionId })
  } catch (error) {
    const reason = error instanceof KeyUnavailableError ? 'encryption key unavailable' : (error as Error).message
    throw new BrokerError('conflict', `Dead-letter copy cannot be delivered again: ${reason}`, { cause: error })
  }
  const sealed = cipher!.encrypt(plaintext, { ...identity, transactionId: copy.newTransactionId })
  await executeQuery(client, 'messagePayloadReplace', [copy.partitionId, row.position, JSON.stringify(sealed)])
}
