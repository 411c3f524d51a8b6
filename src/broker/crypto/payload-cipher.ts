/**
 * Payload encryption at rest (docs/semantics.md, "Encryption at rest", docs/operations.md, "Encryption at rest"):
 * AES-256-GCM with a random 12-byte IV per message and a 16-byte tag. The additional authenticated data binds a
 * ciphertext to the message it belongs to (tenant, queue, partition, transaction id), so a ciphertext copied onto
 * another message fails authentication. The stored form is `{"encrypted", "iv", "authTag", "kid"}` (base64, and the key
 * id: the first 16 hex characters of the key's SHA-256), so a payload written with another key is recognised by its key
 * id without trying to decrypt it.
 *
 * Two distinct failures: {@link KeyUnavailableError} (no key here, or the payload names another key: a
 * misconfiguration, never the message's fault) and {@link DecryptionFailedError} (same key id, but the
 * ciphertext does not authenticate or is malformed: a tampered or corrupted row).
 */
import { createCipheriv, createDecipheriv, createSecretKey, randomBytes, type KeyObject } from 'node:crypto'
import { encryptionKeyId, encryptionKeyProblem } from '../../platform/config/key-format.js'

const ALGORITHM = 'aes-256-gcm'
const IV_BYTES = 12
const TAG_BYTES = 16
/** Domain and version of the AAD layout; a future layout changes this tag, never the meaning of this one. */
const AAD_TAG = 'queen-payload-v1'

/** The message a payload belongs to; every field is bound into the ciphertext. */
export interface PayloadIdentity {
  tenant: string
  queue: string
  partition: string
  transactionId: string
}

/** The stored form of an encrypted payload (the `payload` column when `is_encrypted` is true). */
export interface StoredCiphertext {
  encrypted: string
  iv: string
  authTag: string
  kid: string
}

/** The payload cannot be decrypted here: no key is configured, or it was written with another key. */
export class KeyUnavailableError extends Error {
  /** Key id named by the payload, when it names one. */
  readonly payloadKeyId: string | undefined

  constructor(payloadKeyId: string | undefined, configured: boolean) {
    super(
      configured
        ? `encryption key unavailable: the payload was encrypted with key ${payloadKeyId ?? '?'}, not the configured key`
        : 'encryption key unavailable: QUEEN_ENCRYPTION_KEY is not configured',
    )
    this.name = 'KeyUnavailableError'
    this.payloadKeyId = payloadKeyId
  }
}

/** The key is right but the payload does not authenticate or is not a ciphertext at all. */
export class DecryptionFailedError extends Error {
  constructor(reason: string) {
    super(`decryption failed: ${reason}`)
    this.name = 'DecryptionFailedError'
  }
}

/**
 * The AAD: a JSON array, so the fields are length-delimited by construction and cannot run together
 * (`("ab","c")` and `("a","bc")` give different bytes).
 */
function aadOf(identity: PayloadIdentity): Buffer {
  return Buffer.from(
    JSON.stringify([AAD_TAG, identity.tenant, identity.queue, identity.partition, identity.transactionId]),
    'utf8',
  )
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/

function decodeBase64(value: unknown, field: string, bytes?: number): Buffer {
  if (typeof value !== 'string' || value.length % 4 !== 0 || !BASE64.test(value)) {
    throw new DecryptionFailedError(`malformed ciphertext (${field} is not base64)`)
  }
  const decoded = Buffer.from(value, 'base64')
  if (bytes !== undefined && decoded.length !== bytes) {
    throw new DecryptionFailedError(`malformed ciphertext (${field} has ${decoded.length} bytes, expected ${bytes})`)
  }
  return decoded
}

/** Reads a stored payload: the parsed object, or the JSON text PostgreSQL returned. */
function storedObject(stored: unknown): Record<string, unknown> {
  let value = stored
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value) as unknown
    } catch {
      throw new DecryptionFailedError('malformed ciphertext (not JSON)')
    }
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new DecryptionFailedError('malformed ciphertext (not an object)')
  }
  return value as Record<string, unknown>
}

/** The key id a stored payload names, when it names one (a string `kid`). */
export function storedKeyId(stored: unknown): string | undefined {
  try {
    const kid = storedObject(stored).kid
    return typeof kid === 'string' ? kid : undefined
  } catch {
    return undefined
  }
}

/** Encrypts and decrypts payloads with the broker's key. */
export class PayloadCipher {
  /** First 16 hex characters of SHA-256 of the key bytes. */
  readonly keyId: string
  private readonly key: KeyObject

  /** `keyHex`: 64 hexadecimal characters (QUEEN_ENCRYPTION_KEY, already validated at boot). */
  constructor(keyHex: string) {
    const problem = encryptionKeyProblem(keyHex)
    if (problem !== undefined) throw new Error(problem)
    this.key = createSecretKey(Buffer.from(keyHex, 'hex'))
    this.keyId = encryptionKeyId(keyHex)
  }

  /** Encrypts the JSON text of a payload for the message `identity`. */
  encrypt(plaintextJson: string, identity: PayloadIdentity): StoredCiphertext {
    const iv = randomBytes(IV_BYTES)
    const cipher = createCipheriv(ALGORITHM, this.key, iv, { authTagLength: TAG_BYTES })
    cipher.setAAD(aadOf(identity))
    const encrypted = Buffer.concat([cipher.update(plaintextJson, 'utf8'), cipher.final()])
    return {
      encrypted: encrypted.toString('base64'),
      iv: iv.toString('base64'),
      authTag: cipher.getAuthTag().toString('base64'),
      kid: this.keyId,
    }
  }

  /**
   * The JSON text of a stored payload (parsed object or JSON text). Throws {@link KeyUnavailableError} when
   * it names another key id (checked before any decryption) and {@link DecryptionFailedError} when it does
   * not authenticate or is malformed.
   */
  decrypt(stored: unknown, identity: PayloadIdentity): string {
    const object = storedObject(stored)
    if (typeof object.kid !== 'string') throw new DecryptionFailedError('malformed ciphertext (no key id)')
    if (object.kid !== this.keyId) throw new KeyUnavailableError(object.kid, true)
    const iv = decodeBase64(object.iv, 'iv', IV_BYTES)
    const tag = decodeBase64(object.authTag, 'authTag', TAG_BYTES)
    const encrypted = decodeBase64(object.encrypted, 'encrypted')
    const decipher = createDecipheriv(ALGORITHM, this.key, iv, { authTagLength: TAG_BYTES })
    decipher.setAAD(aadOf(identity))
    decipher.setAuthTag(tag)
    try {
      return Buffer.concat([decipher.update(encrypted), decipher.final()]).toString('utf8')
    } catch {
      throw new DecryptionFailedError('authentication tag mismatch')
    }
  }
}

/** {@link PayloadCipher.decrypt}, or {@link KeyUnavailableError} when the broker has no key. */
export function decryptPayload(cipher: PayloadCipher | undefined, stored: unknown, identity: PayloadIdentity): string {
  if (!cipher) throw new KeyUnavailableError(storedKeyId(stored), false)
  return cipher.decrypt(stored, identity)
}
