/**
 * Session tokens (docs/gateway.md, "People: users, sessions and sign-in"): `qs_` and 32 random bytes, so a bearer
 * token tells at a glance whether it is a session or an API key (`qk_`). The database keeps only the token's SHA-256:
 * 256 random bits need no slow hash, and a leaked table holds no usable session.
 */
import { createHash, randomBytes } from 'node:crypto'

const TOKEN_PATTERN = /^qs_[A-Za-z0-9_-]{43}$/

export function generateSessionToken(): string {
  return `qs_${randomBytes(32).toString('base64url')}`
}

/** Whether `text` is shaped like a session token (the check is the database's). */
export function isSessionToken(text: string): boolean {
  return TOKEN_PATTERN.test(text)
}

/** What the database stores for a token. */
export function sessionTokenHash(token: string): Buffer {
  return createHash('sha256').update(token).digest()
}
