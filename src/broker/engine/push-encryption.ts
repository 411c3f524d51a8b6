/**
 * Encryption on the push side (docs/semantics.md, "Encryption on push" and "Encryption at rest", docs/operations.md,
 * "Spool record format" and "Spool replay"): decides, item by item, whether a payload is stored as ciphertext, and
 * encrypts it before it reaches PostgreSQL or the spool. Plaintext is never stored for an encrypted queue.
 *
 * Three paths, three sources of truth:
 *
 * - PostgreSQL (push, transaction push operations, stream sink pushes): the queue's setting comes from the
 *   registry cache, loaded when the queue is not cached. The push statement re-checks it against the
 *   item's `enc` flag; a stale cache answers `encryption_mismatch`, the engine reloads the queue and
 *   prepares the item again (the safety net; never a plaintext fallback).
 *
 * - The spool (PostgreSQL unreachable, push-maintenance, partition awaiting replay): only the cache can
 *   answer. What is safe when it cannot:
 *
 *   | queue in the cache | key configured | spooled as                                            |
 *   |--------------------|----------------|-------------------------------------------------------|
 *   | encrypted          | yes            | ciphertext                                            |
 *   | encrypted          | no             | nothing: the item fails (`encryption unavailable`)    |
 *   | not encrypted      | either         | clear                                                 |
 *   | unknown            | yes            | ciphertext: safe whatever the queue turns out to be   |
 *   | unknown            | no             | clear (see below)                                     |
 *
 *   Unknown queue on a broker without a key: such a broker can neither push to nor pop from an encrypted
 *   queue, so a deployment that encrypts gives every replica the key; a broker without one is taken to
 *   serve queues in clear. Refusing instead would turn every push to a queue this replica has not cached
 *   (every queue, after a boot while PostgreSQL is down) into a 503, which is what the spool exists to
 *   avoid. The residual case (a misconfigured replica without the key, during an outage, pushing to an
 *   encrypted queue it has not cached) leaves clear text on that broker's own disk only: replay refuses to
 *   store it (below), and the record is quarantined.
 *
 * - Spool replay: the records are checked against the queues' settings, read just before the batch is
 *   stored, so the stored form follows the queue's current setting, as a direct push would. (Not locked: a
 *   configure committing in between is indistinguishable from one made just after the replay, since
 *   changing the setting never rewrites stored messages.)
 *
 *   | record     | queue now     | stored                                                               |
 *   |------------|---------------|----------------------------------------------------------------------|
 *   | clear      | not encrypted | as is                                                                |
 *   | ciphertext | encrypted     | as is (never encrypted twice)                                        |
 *   | clear      | encrypted     | encrypted now with the key; without a key refused (then quarantined) |
 *   | ciphertext | not encrypted | decrypted when the key id is ours (it was encrypted only because the |
 *   |            |               | spool could not tell); otherwise as is, readable with the right key  |
 */
import type pg from 'pg'
import { classifyPgError, DatabaseUnavailableError } from '../../platform/postgres/pg-errors.js'
import { runQuery } from '../db/run-query.js'
import type { PushItem } from './push-item.js'
import type { QueueRegistry } from './queue-registry.js'
import type { SpoolRecord } from '../spool/record-format.js'
import { KeyUnavailableError, type PayloadCipher, type PayloadIdentity } from '../crypto/payload-cipher.js'

/** The per-item refusal of a push to an encrypted queue on a broker without a key (docs/semantics.md, "Refusals"). */
export const ENCRYPTION_UNAVAILABLE = 'encryption unavailable: QUEEN_ENCRYPTION_KEY is not configured'

/** A push item ready for PostgreSQL, or why it is refused. */
export type PreparedPush = { item: PushItem } | { error: string }

/** What a spool record holds for an item, or why it is refused. */
export type SpooledPayload = { encrypted: boolean; payload: unknown } | { error: string }

/** A spooled record that replay must not store (clear text for an encrypted queue, no key). */
export class ReplayRefusedError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ReplayRefusedError'
  }
}

/** Counts encryption failures (queen_encryption_failures_total{op="encrypt"}). */
export type EncryptFailureListener = () => void

/** Push-side encryption decisions of one broker. */
export class PushEncryption {
  /** The broker's cipher; undefined without QUEEN_ENCRYPTION_KEY. */
  readonly cipher: PayloadCipher | undefined
  private readonly registry: QueueRegistry
  private readonly onEncryptFailure: EncryptFailureListener
  /** Registry loads in flight, shared by concurrent pushes to the same uncached queue. */
  private readonly loading = new Map<string, Promise<boolean>>()

  constructor(
    registry: QueueRegistry,
    cipher: PayloadCipher | undefined,
    onEncryptFailure: EncryptFailureListener = () => undefined,
  ) {
    this.registry = registry
    this.cipher = cipher
    this.onEncryptFailure = onEncryptFailure
  }

  /**
   * Items for the push statement: payloads of encrypted queues replaced by their ciphertext (`encrypted`
   * set), items refused when there is no key. `db`: the caller's transaction (an uncached queue is read
   * through it); otherwise the pool. An outage while loading the queue throws {@link DatabaseUnavailableError}.
   */
  async prepare(tenant: string, items: PushItem[], db?: pg.ClientBase): Promise<PreparedPush[]> {
    const encrypted = new Map<string, boolean>()
    const missing = new Set<string>()
    for (const item of items) {
      if (encrypted.has(item.queue) || missing.has(item.queue)) continue
      const cached = this.registry.peek(tenant, item.queue)
      if (cached) encrypted.set(item.queue, cached.encryptionEnabled)
      else missing.add(item.queue)
    }
    if (missing.size > 0) {
      const queues = [...missing]
      try {
        const states = await Promise.all(queues.map((queue) => this.load(tenant, queue, db)))
        queues.forEach((queue, index) => encrypted.set(queue, states[index]!))
      } catch (error) {
        if (db === undefined && classifyPgError(error) === 'unavailable') throw new DatabaseUnavailableError(error)
        throw error
      }
    }
    return items.map((item) => {
      if (!encrypted.get(item.queue)) return { item: item.encrypted ? { ...item, encrypted: false } : item }
      if (!this.cipher) return { error: ENCRYPTION_UNAVAILABLE }
      const sealed = this.seal(tenant, item)
      return 'error' in sealed ? sealed : { item: { ...item, payload: sealed.payload, encrypted: true } }
    })
  }

  /** What the spool stores for an item; PostgreSQL is not asked (see the table above). */
  forSpool(tenant: string, item: PushItem): SpooledPayload {
    const cached = this.registry.peek(tenant, item.queue)
    if (cached && !cached.encryptionEnabled) return { encrypted: false, payload: item.payload }
    if (this.cipher) {
      const sealed = this.seal(tenant, item)
      return 'error' in sealed ? sealed : { encrypted: true, payload: sealed.payload }
    }
    if (cached) return { error: ENCRYPTION_UNAVAILABLE }
    return { encrypted: false, payload: item.payload }
  }

  /**
   * The payload a spooled record is stored with, given the queue's setting read just before the replay
   * (see the table above). Throws {@link ReplayRefusedError} for clear text of an encrypted queue without a
   * key.
   */
  forReplay(tenant: string, record: SpoolRecord, queueEncrypted: boolean): { encrypted: boolean; payload: unknown } {
    const identity = identityOf(tenant, record)
    if (record.encrypted === queueEncrypted) return { encrypted: record.encrypted, payload: record.payload }
    if (queueEncrypted) {
      if (!this.cipher) {
        throw new ReplayRefusedError(
          `queue '${record.queue}' is encrypted and this record was spooled in clear; ${ENCRYPTION_UNAVAILABLE}`,
        )
      }
      return { encrypted: true, payload: this.cipher.encrypt(payloadText(record.payload), identity) }
    }
    if (!this.cipher) return { encrypted: true, payload: record.payload }
    try {
      return { encrypted: false, payload: JSON.parse(this.cipher.decrypt(record.payload, identity)) as unknown }
    } catch (error) {
      // Another key: keep the ciphertext (readable once that key is configured). A record that does not
      // authenticate was altered on disk after its CRC was written: refuse it (quarantine).
      if (error instanceof KeyUnavailableError) return { encrypted: true, payload: record.payload }
      throw new ReplayRefusedError((error as Error).message)
    }
  }

  /** Whether an uncached queue is encrypted, read from PostgreSQL. */
  private async load(tenant: string, queue: string, db: pg.ClientBase | undefined): Promise<boolean> {
    // A queue that does not exist yet is created in clear by the push. Inside a transaction the queue is
    // read through it and not cached (the transaction may create it and then roll back).
    if (db) {
      const rows = await runQuery<{ encryption_enabled: boolean }>(db, 'queueGet', [tenant, queue])
      return rows[0]?.encryption_enabled ?? false
    }
    const key = `${tenant}\u0000${queue}`
    let pending = this.loading.get(key)
    if (!pending) {
      pending = this.registry
        .load(tenant, queue)
        .then((record) => record?.encryptionEnabled ?? false)
        .finally(() => this.loading.delete(key))
      this.loading.set(key, pending)
    }
    return pending
  }

  private seal(tenant: string, item: PushItem): { payload: unknown } | { error: string } {
    try {
      return { payload: this.cipher!.encrypt(payloadText(item.payload), identityOf(tenant, item)) }
    } catch (error) {
      // Never a plaintext fallback (docs/semantics.md, "Refusals"): the item fails.
      this.onEncryptFailure()
      return { error: `encryption failed: ${(error as Error).message}` }
    }
  }
}

/** The message identity bound into a payload's ciphertext. */
export function identityOf(
  tenant: string,
  item: { queue: string; partition: string; transactionId: string },
): PayloadIdentity {
  return { tenant, queue: item.queue, partition: item.partition, transactionId: item.transactionId }
}

/** The JSON text of a payload as pushed (an absent payload is `null`, as the push statement stores it). */
function payloadText(payload: unknown): string {
  return JSON.stringify(payload ?? null)
}
