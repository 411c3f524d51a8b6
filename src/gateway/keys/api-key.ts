/**
 * API keys (docs/gateway.md, "Tenants and API keys"): `qk_<prefix>_<secret>`, random, shown once. The prefix is
 * visible (listings, `apikey revoke`); the secret is kept only as an scrypt hash with its own salt.
 */
import { createHash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto'

/** The roles a key can carry, from the narrowest. */
export const KEY_ROLES = ['read-only', 'producer', 'consumer', 'read-write', 'tenant-admin'] as const
export type KeyRole = (typeof KEY_ROLES)[number]

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567'
const PREFIX_CHARS = 10
const SECRET_BYTES = 32
const KEY_PATTERN = /^(qk_[a-z2-7]{10})_([A-Za-z0-9_-]{43})$/
const HASH_BYTES = 32
const SALT_BYTES = 16
// scrypt's cost (N=2^14, r=8, p=1, about 30-50 ms): paid once per key per gateway, then the verdict is cached.
const SCRYPT_OPTIONS = { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 }

/** A key as created: the text shown once, and what is stored. */
export interface NewApiKey {
  readonly key: string
  readonly prefix: string
  readonly salt: Buffer
  readonly hash: Buffer
}

/** The parts of a presented key, or undefined when it is not shaped like one of ours. */
export function parseApiKey(text: string): { prefix: string; secret: string } | undefined {
  const match = KEY_PATTERN.exec(text)
  return match ? { prefix: match[1]!, secret: match[2]! } : undefined
}

function randomPrefix(): string {
  const bytes = randomBytes(PREFIX_CHARS)
  let out = 'qk_'
  for (const byte of bytes) out += BASE32[byte % 32]
  return out
}

export function scryptHash(secret: string, salt: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(secret, salt, HASH_BYTES, SCRYPT_OPTIONS, (error, derived) => (error ? reject(error) : resolve(derived)))
  })
}

/** A new random key and its stored form. */
export async function generateApiKey(): Promise<NewApiKey> {
  const prefix = randomPrefix()
  const secret = randomBytes(SECRET_BYTES).toString('base64url')
  const salt = randomBytes(SALT_BYTES)
  return { key: `${prefix}_${secret}`, prefix, salt, hash: await scryptHash(secret, salt) }
}

/** Whether `secret` matches the stored salt and hash (constant time in the comparison). */
export async function secretMatches(secret: string, salt: Buffer, hash: Buffer): Promise<boolean> {
  const derived = await scryptHash(secret, salt)
  return derived.length === hash.length && timingSafeEqual(derived, hash)
}

/** The cache key of a presented key: its SHA-256, so the cache never holds a key in clear. */
export function keyDigest(text: string): string {
  return createHash('sha256').update(text).digest('hex')
}
