/**
 * Encrypted payloads on the pop path (docs/semantics.md, "Pops without a usable key", docs/http-api.md, "Pop answer").
 *
 * No usable key (none configured, or the payload names another key id): detected inside the pop statement
 * itself (queen.require_payload_key, message-pop.sql), which then fails as a whole, so the pop leases
 * nothing, auto-acks nothing and counts no failure: there is no lease to release afterwards, and an autoAck
 * pop (which settles at delivery) loses nothing either. The pop answers
 * `{success:false, error:"encryption key unavailable for queue '<q>'", messages:[]}`. A namespace pop skips
 * such a queue and answers that error only when no other queue gave it messages.
 *
 * Key id matches but the ciphertext does not authenticate (a tampered or corrupted row): that message is
 * dead-lettered for the group with `decryption failed: authentication tag mismatch` and settled, the
 * failure counter `queen_encryption_failures_total{op="decrypt"}` rises, and the rest of the batch is
 * delivered. Ciphertext is never delivered as data.
 */
import type pg from 'pg'
import { runQuery } from '../db/run-query.js'
import type { BrokerEvents } from '../observe/broker-events.js'
import { DecryptionFailedError, decryptPayload, KeyUnavailableError, type PayloadCipher } from './payload-cipher.js'

/** SQLSTATE raised by queen.require_payload_key (schema 013). */
export const KEY_UNAVAILABLE_SQLSTATE = 'QK001'

/** True for the pop statement's "no usable key" failure. */
export function isKeyUnavailableError(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === KEY_UNAVAILABLE_SQLSTATE
}

/**
 * The error of a pop on a queue whose payloads this broker cannot decrypt (docs/semantics.md, "Pops without a usable
 * key").
 */
export function keyUnavailableError(queue: string): string {
  return `encryption key unavailable for queue '${queue}'`
}

/** The fields of a popped row this step reads and rewrites. */
export interface EncryptedPopRow {
  kind: string
  partition_id: string | null
  partition_name: string | null
  message_id: string | null
  transaction_id: string | null
  payload: unknown
  is_encrypted: boolean | null
  queue: string
}

/** What became of a pop's rows. */
export type OpenedRows<Row> =
  | { rows: Row[] }
  /** A payload named a key this broker does not have (the statement's guard normally catches this first). */
  | { keyUnavailable: string }

/** Decrypts popped rows and dead-letters those that fail authentication. */
export class PopDecryption {
  private readonly pool: pg.Pool
  private readonly cipher: PayloadCipher | undefined
  private readonly events: BrokerEvents
  private readonly reportError: (error: unknown, context: string) => void

  constructor(
    pool: pg.Pool,
    cipher: PayloadCipher | undefined,
    events: BrokerEvents,
    reportError: (error: unknown, context: string) => void = () => undefined,
  ) {
    this.pool = pool
    this.cipher = cipher
    this.events = events
    this.reportError = reportError
  }

  /** The key id the pop statement checks payloads against; null without a key. */
  get keyId(): string | null {
    return this.cipher?.keyId ?? null
  }

  /**
   * Replaces every encrypted payload by its plaintext JSON text; messages that fail authentication are
   * dead-lettered for `group` and left out. When the dead-lettering itself fails (database), the rest is
   * still delivered (an autoAck pop has settled it already) and the tampered messages stay under the lease:
   * its expiry makes them deliverable again, and the next pop dead-letters them.
   */
  async open<Row extends EncryptedPopRow>(tenant: string, group: string, rows: Row[]): Promise<OpenedRows<Row>> {
    if (!rows.some((row) => row.kind === 'message' && row.is_encrypted === true)) return { rows }
    const kept: Row[] = []
    const tampered: { row: Row; error: string }[] = []
    for (const row of rows) {
      if (row.kind !== 'message' || row.is_encrypted !== true) {
        kept.push(row)
        continue
      }
      try {
        const plaintext = decryptPayload(this.cipher, row.payload, {
          tenant,
          queue: row.queue,
          partition: row.partition_name!,
          transactionId: row.transaction_id!,
        })
        kept.push({ ...row, payload: plaintext, is_encrypted: false })
      } catch (error) {
        if (error instanceof KeyUnavailableError) return { keyUnavailable: row.queue }
        if (!(error instanceof DecryptionFailedError)) throw error
        tampered.push({ row, error: error.message })
      }
    }
    if (tampered.length > 0) {
      this.events.emit('encryptionFailed', 'decrypt', tampered.length)
      await this.deadLetter(tenant, group, tampered).catch((error: unknown) =>
        this.reportError(error, 'dead-lettering undecryptable messages'),
      )
    }
    return { rows: kept }
  }

  private async deadLetter(
    tenant: string,
    group: string,
    failures: { row: EncryptedPopRow; error: string }[],
  ): Promise<void> {
    // Consumer rows are locked in partition order.
    const ordered = [...failures].sort((a, b) => compare(a.row.partition_id!, b.row.partition_id!))
    const results = await runQuery<{ dead_lettered: boolean }>(this.pool, 'messageDeadLetterUndecryptable', [
      ordered.map((failure) => failure.row.partition_id),
      ordered.map((failure) => failure.row.transaction_id),
      ordered.map((failure) => failure.row.message_id),
      ordered.map((failure) => failure.error),
      group,
    ])
    const byQueue = new Map<string, number>()
    results.forEach((result, index) => {
      if (!result.dead_lettered) return
      const queue = ordered[index]!.row.queue
      byQueue.set(queue, (byQueue.get(queue) ?? 0) + 1)
    })
    for (const [queue, count] of byQueue) this.events.emit('deadLettered', tenant, queue, count)
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
