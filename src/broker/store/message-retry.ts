/**
 * The retry of a dead letter (docs/http-api.md, "Retry a message") as one transaction: the message-retry statement, and
 * when only the DLQ payload copy was left, that copy sealed again for its new transaction id before any pop sees it.
 */
import type pg from 'pg'
import { resealRetriedCopy } from '../crypto/retried-copy.js'
import type { PayloadCipher } from '../crypto/payload-cipher.js'
import { inTransaction } from '../../platform/postgres/pool.js'
import { runQuery } from '../db/run-query.js'
import { newUuidV7 } from '../ids.js'
import type { MessageKey } from './messages.js'

/** What a retry delivered again. */
export interface RetriedMessage {
  queue: string
  partition: string
  /** The groups whose DLQ entry was taken out. */
  consumerGroups: string[]
  /** Set when the message was stored again from its DLQ copy under a new transaction id. */
  newTransactionId: string | null
}

/**
 * Takes the message out of the DLQ of `group` (every group holding it when null) and delivers it again;
 * undefined when it is not in the DLQ. Throws the `conflict` error of resealRetriedCopy, rolling back, when
 * an encrypted copy cannot be sealed again.
 */
export async function retryDeadLetter(
  deps: { pool: pg.Pool; cipher?: PayloadCipher | undefined },
  params: MessageKey & { group: string | null },
): Promise<RetriedMessage | undefined> {
  return inTransaction(deps.pool, async (client) => {
    // message-retry.sql: $1 tenant, $2 partition id, $3 transaction id, $4 group, $5 message id and
    // $6 transaction id for a message stored again from its DLQ copy.
    const [row] = await runQuery<{
      queue_name: string
      partition_name: string
      consumer_groups: string[]
      new_transaction_id: string | null
    }>(client, 'messageRetry', [
      params.tenant,
      params.partitionId,
      params.transactionId,
      params.group,
      newUuidV7(),
      newUuidV7(),
    ])
    if (!row) return undefined
    if (row.new_transaction_id) {
      await resealRetriedCopy(client, deps.cipher, {
        tenant: params.tenant,
        partitionId: params.partitionId,
        queue: row.queue_name,
        partition: row.partition_name,
        transactionId: params.transactionId,
        newTransactionId: row.new_transaction_id,
      })
    }
    return {
      queue: row.queue_name,
      partition: row.partition_name,
      consumerGroups: row.consumer_groups,
      newTransactionId: row.new_transaction_id,
    }
  })
}
