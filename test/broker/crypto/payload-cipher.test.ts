/**
 * The payload cipher (docs/semantics.md, "Encryption: what and how"): AES-256-GCM, random 12-byte IV, 16-byte tag, the
 * message identity as AAD, the stored form and key id; and the push-side decisions of PushEncryption for the spool and
 * its replay (no database: a fake registry).
 */
import { createHash, randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import {
  DecryptionFailedError,
  decryptPayload,
  KeyUnavailableError,
  PayloadCipher,
  storedKeyId,
  type PayloadIdentity,
} from '../../../src/broker/crypto/payload-cipher.js'
import {
  ENCRYPTION_UNAVAILABLE,
  PushEncryption,
  ReplayRefusedError,
} from '../../../src/broker/engine/push-encryption.js'
import type { PushItem } from '../../../src/broker/engine/push-item.js'
import type { QueueRecord, QueueRegistry } from '../../../src/broker/engine/queue-registry.js'
import type { SpoolRecord } from '../../../src/broker/spool/record-format.js'

const KEY = 'a1'.repeat(32)
const OTHER_KEY = 'B2'.repeat(32)
const identity: PayloadIdentity = { tenant: 't', queue: 'orders', partition: 'p1', transactionId: 'tx-1' }

function keyIdOf(hex: string): string {
  return createHash('sha256').update(Buffer.from(hex, 'hex')).digest('hex').slice(0, 16)
}

describe('PayloadCipher', () => {
  const cipher = new PayloadCipher(KEY)

  it('stores {encrypted, iv, authTag, kid}: base64, a 12-byte IV, a 16-byte tag and the key id', () => {
    const stored = cipher.encrypt('{"a":1}', identity)
    expect(Object.keys(stored).sort()).toEqual(['authTag', 'encrypted', 'iv', 'kid'])
    expect(Buffer.from(stored.iv, 'base64')).toHaveLength(12)
    expect(Buffer.from(stored.authTag, 'base64')).toHaveLength(16)
    expect(Buffer.from(stored.encrypted, 'base64')).toHaveLength('{"a":1}'.length)
    expect(stored.kid).toBe(keyIdOf(KEY))
    expect(stored.kid).toMatch(/^[0-9a-f]{16}$/)
    expect(cipher.keyId).toBe(stored.kid)
    // Upper-case hex is the same key.
    expect(new PayloadCipher(KEY.toUpperCase()).keyId).toBe(stored.kid)
  })

  it('decrypts to the exact JSON text, from the object or from its JSON text', () => {
    const text = JSON.stringify({ s: 'héllo ✓ 𝄞', n: [1, 2.5, -3e-7], nested: { t: true, z: null }, e: '' })
    const stored = cipher.encrypt(text, identity)
    expect(cipher.decrypt(stored, identity)).toBe(text)
    expect(cipher.decrypt(JSON.stringify(stored), identity)).toBe(text)
    expect(cipher.decrypt(JSON.parse(JSON.stringify(stored)), identity)).toBe(text)
    expect(cipher.decrypt(cipher.encrypt('null', identity), identity)).toBe('null')
    expect(cipher.decrypt(cipher.encrypt('""', identity), identity)).toBe('""')
  })

  it('never repeats an IV (10 000 encryptions of the same payload)', () => {
    const ivs = new Set<string>()
    const ciphertexts = new Set<string>()
    for (let index = 0; index < 10_000; index++) {
      const stored = cipher.encrypt('"same"', identity)
      ivs.add(stored.iv)
      ciphertexts.add(stored.encrypted)
    }
    expect(ivs.size).toBe(10_000)
    expect(ciphertexts.size).toBeGreaterThan(9_990)
  })

  it('binds the ciphertext to tenant, queue, partition and transaction id', () => {
    const stored = cipher.encrypt('"secret"', identity)
    for (const other of [
      { ...identity, tenant: 'u' },
      { ...identity, queue: 'orders2' },
      { ...identity, partition: 'p2' },
      { ...identity, transactionId: 'tx-2' },
    ]) {
      expect(() => cipher.decrypt(stored, other)).toThrow(DecryptionFailedError)
      expect(() => cipher.decrypt(stored, other)).toThrow('decryption failed: authentication tag mismatch')
    }
  })

  it('keeps the AAD fields apart: ("ab","c") and ("a","bc") are different messages', () => {
    const first = { tenant: '', queue: 'ab', partition: 'c', transactionId: 'x' }
    const second = { tenant: '', queue: 'a', partition: 'bc', transactionId: 'x' }
    expect(() => cipher.decrypt(cipher.encrypt('1', first), second)).toThrow('authentication tag mismatch')
    const third = { tenant: 'a', queue: 'b', partition: 'c|d', transactionId: 'x' }
    const fourth = { tenant: 'a', queue: 'b', partition: 'c', transactionId: 'd|x' }
    expect(() => cipher.decrypt(cipher.encrypt('1', third), fourth)).toThrow('authentication tag mismatch')
  })

  it('detects a tampered ciphertext, tag or IV as an authentication failure', () => {
    const stored = cipher.encrypt('{"amount":100}', identity)
    const flip = (base64: string) => {
      const bytes = Buffer.from(base64, 'base64')
      bytes[0] = bytes[0]! ^ 0x01
      return bytes.toString('base64')
    }
    for (const tampered of [
      { ...stored, encrypted: flip(stored.encrypted) },
      { ...stored, authTag: flip(stored.authTag) },
      { ...stored, iv: flip(stored.iv) },
      { ...stored, encrypted: stored.encrypted.slice(0, -4) },
    ]) {
      expect(() => cipher.decrypt(tampered, identity)).toThrow(DecryptionFailedError)
      expect(() => cipher.decrypt(tampered, identity)).toThrow('decryption failed: authentication tag mismatch')
    }
  })

  it('recognises another key by its key id, without trying to decrypt', () => {
    const other = new PayloadCipher(OTHER_KEY)
    const stored = other.encrypt('"x"', identity)
    expect(() => cipher.decrypt(stored, identity)).toThrow(KeyUnavailableError)
    // Garbage under another key id is still "key unavailable": nothing was decrypted.
    expect(() => cipher.decrypt({ ...stored, encrypted: '!!', iv: '', authTag: '' }, identity)).toThrow(
      KeyUnavailableError,
    )
    expect(storedKeyId(stored)).toBe(keyIdOf(OTHER_KEY))
    expect(storedKeyId(JSON.stringify(stored))).toBe(keyIdOf(OTHER_KEY))
  })

  it('without a key, every encrypted payload is "key unavailable"', () => {
    const stored = cipher.encrypt('"x"', identity)
    expect(() => decryptPayload(undefined, stored, identity)).toThrow(KeyUnavailableError)
    expect(() => decryptPayload(undefined, stored, identity)).toThrow(/QUEEN_ENCRYPTION_KEY is not configured/)
    expect(decryptPayload(cipher, stored, identity)).toBe('"x"')
  })

  it('answers malformed stored forms as decryption failures, never as data', () => {
    const stored = cipher.encrypt('"x"', identity)
    for (const malformed of [
      'not json',
      '"a string"',
      [],
      null,
      { ...stored, kid: undefined },
      { ...stored, iv: Buffer.alloc(16).toString('base64') },
      { ...stored, authTag: Buffer.alloc(8).toString('base64') },
      { ...stored, encrypted: 'not base64!' },
      { ...stored, iv: 42 },
    ]) {
      expect(() => cipher.decrypt(malformed, identity), JSON.stringify(malformed)).toThrow(DecryptionFailedError)
    }
  })

  it('refuses a key that is not 64 hexadecimal characters, without quoting it', () => {
    for (const bad of [KEY.slice(1), `${KEY}0`, `g${KEY.slice(1)}`, `0x${KEY.slice(2)}`, `${KEY}\n`, `${KEY} `]) {
      expect(() => new PayloadCipher(bad)).toThrow(/QUEEN_ENCRYPTION_KEY/)
      try {
        new PayloadCipher(bad)
      } catch (error) {
        expect((error as Error).message).not.toContain(KEY.slice(4, 40))
      }
    }
  })
})

/** A registry that only answers from a fixed map, as the cache does when PostgreSQL is down. */
function fakeRegistry(queues: Record<string, boolean>): QueueRegistry {
  return {
    peek: (_tenant: string, name: string) =>
      name in queues ? ({ name, encryptionEnabled: queues[name] } as unknown as QueueRecord) : undefined,
    load: () => Promise.reject(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })),
  } as unknown as QueueRegistry
}

function item(queue: string, payload: unknown): PushItem {
  return {
    queue,
    partition: 'Default',
    payload,
    transactionId: `tx-${queue}`,
    generatedTransactionId: false,
    traceId: null,
    producerSub: null,
  }
}

function record(queue: string, encrypted: boolean, payload: unknown): SpoolRecord {
  return {
    v: 1,
    tenant: 't',
    queue,
    partition: 'Default',
    transactionId: `tx-${queue}`,
    traceId: null,
    producerSub: null,
    acceptedAt: Date.now(),
    requestId: 'r',
    encrypted,
    payload,
  }
}

describe('PushEncryption', () => {
  const cipher = new PayloadCipher(KEY)
  const registry = fakeRegistry({ secret: true, open: false })
  const keyed = new PushEncryption(registry, cipher)
  const keyless = new PushEncryption(registry, undefined)
  const marker = randomBytes(32).toString('hex')

  it('spools ciphertext for an encrypted queue, and refuses it without a key', () => {
    const spooled = keyed.forSpool('t', item('secret', { marker }))
    expect(spooled).toMatchObject({ encrypted: true })
    expect(JSON.stringify(spooled)).not.toContain(marker)
    const payload = (spooled as { payload: unknown }).payload
    expect(
      JSON.parse(
        cipher.decrypt(payload, { ...identity, queue: 'secret', partition: 'Default', transactionId: 'tx-secret' }),
      ),
    ).toEqual({ marker })
    expect(keyless.forSpool('t', item('secret', { marker }))).toEqual({ error: ENCRYPTION_UNAVAILABLE })
  })

  it('spools a queue known to be clear in clear, with or without a key', () => {
    expect(keyed.forSpool('t', item('open', { marker }))).toEqual({ encrypted: false, payload: { marker } })
    expect(keyless.forSpool('t', item('open', { marker }))).toEqual({ encrypted: false, payload: { marker } })
  })

  it('spools a queue the cache does not know as ciphertext with a key, in clear without one', () => {
    const spooled = keyed.forSpool('t', item('unknown', { marker }))
    expect(spooled).toMatchObject({ encrypted: true })
    expect(JSON.stringify(spooled)).not.toContain(marker)
    expect(keyless.forSpool('t', item('unknown', { marker }))).toEqual({ encrypted: false, payload: { marker } })
  })

  it('prepares pushes: ciphertext for encrypted queues, refusal without a key, outage for an unknown queue', async () => {
    const prepared = await keyed.prepare('t', [item('secret', { marker }), item('open', { marker })])
    expect(prepared[0]).toMatchObject({ item: { encrypted: true, queue: 'secret', transactionId: 'tx-secret' } })
    expect(JSON.stringify(prepared[0])).not.toContain(marker)
    expect(prepared[1]).toEqual({ item: item('open', { marker }) })
    expect(await keyless.prepare('t', [item('secret', 1), item('open', 2)])).toEqual([
      { error: ENCRYPTION_UNAVAILABLE },
      { item: item('open', 2) },
    ])
    await expect(keyed.prepare('t', [item('unknown', 1)])).rejects.toThrow(/database unavailable/)
  })

  it('replays a record in the form its queue requires now, never encrypting twice', () => {
    const sealed = keyed.forSpool('t', item('secret', { marker })) as { payload: unknown }
    // Ciphertext for an encrypted queue: as is.
    expect(keyed.forReplay('t', record('secret', true, sealed.payload), true)).toEqual({
      encrypted: true,
      payload: sealed.payload,
    })
    expect(keyless.forReplay('t', record('secret', true, sealed.payload), true).payload).toBe(sealed.payload)
    // Clear for a clear queue: as is.
    expect(keyed.forReplay('t', record('open', false, { marker }), false)).toEqual({
      encrypted: false,
      payload: { marker },
    })
    // Clear for a queue that turned out encrypted: encrypted now, or refused without a key.
    const late = keyed.forReplay('t', record('open', false, { marker }), true)
    expect(late.encrypted).toBe(true)
    expect(JSON.stringify(late)).not.toContain(marker)
    expect(() => keyless.forReplay('t', record('open', false, { marker }), true)).toThrow(ReplayRefusedError)
    // Ciphertext for a queue that turned out clear: decrypted with our key, kept as is with another key.
    const unknown = keyed.forSpool('t', item('unknown', { marker })) as { payload: unknown }
    expect(keyed.forReplay('t', record('unknown', true, unknown.payload), false)).toEqual({
      encrypted: false,
      payload: { marker },
    })
    const otherKey = new PushEncryption(registry, new PayloadCipher(OTHER_KEY))
    expect(otherKey.forReplay('t', record('unknown', true, unknown.payload), false)).toEqual({
      encrypted: true,
      payload: unknown.payload,
    })
    expect(keyless.forReplay('t', record('unknown', true, unknown.payload), false).encrypted).toBe(true)
    // A record altered on disk does not authenticate: refused.
    const altered = { ...(unknown.payload as object), authTag: Buffer.alloc(16).toString('base64') }
    expect(() => keyed.forReplay('t', record('unknown', true, altered), false)).toThrow(/decryption failed/)
  })
})
