/** Test tokens minted with jose directly, as an identity provider would. */
import { createHmac } from 'node:crypto'
import { SignJWT, type CryptoKey, type JWTPayload, type KeyObject } from 'jose'

/** Token claims; `exp: null` leaves `exp` out. */
export type Claims = Omit<JWTPayload, 'exp'> & { exp?: number | null }

/** A 32-byte HS256 secret for test brokers. */
export const SECRET = 'test-secret-0123456789abcdef-0123456789'

/** Signs `claims` with HS256 and `secret`; `exp` one hour ahead unless `claims` set it (null drops it). */
export function hsToken(
  claims: Claims = {},
  secret: string = SECRET,
  header: Record<string, unknown> = {},
): Promise<string> {
  return signed(claims, new TextEncoder().encode(secret), { alg: 'HS256', ...header })
}

/** Signs with an asymmetric private key (RS256 or EdDSA). */
export function signedToken(
  claims: Claims,
  key: CryptoKey | KeyObject,
  header: { alg: string; kid?: string } & Record<string, unknown>,
): Promise<string> {
  return signed(claims, key, header)
}

async function signed(
  claims: Claims,
  key: CryptoKey | KeyObject | Uint8Array,
  header: { alg: string } & Record<string, unknown>,
): Promise<string> {
  const { exp, ...rest } = claims
  const jwt = new SignJWT(rest)
    .setProtectedHeader(header)
    .setIssuedAt(typeof rest.iat === 'number' ? rest.iat : undefined)
  if (exp !== null) jwt.setExpirationTime(exp ?? Math.floor(Date.now() / 1000) + 3600)
  return jwt.sign(key)
}

/** `Authorization: Bearer <token>`. */
export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` }
}

/** An unsigned `alg: none` token (jose will not make one). */
export function noneToken(claims: JWTPayload): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url')
  return `${part({ alg: 'none', typ: 'JWT' })}.${part({ exp: Math.floor(Date.now() / 1000) + 3600, ...claims })}.`
}

/**
 * An HS256 token over header and payload JSON written by hand, validly signed: for JSON jose will not
 * produce, such as a payload that repeats a key.
 */
export function hsTokenFromJson(headerJson: string, payloadJson: string, secret: string = SECRET): string {
  const part = (json: string) => Buffer.from(json).toString('base64url')
  const input = `${part(headerJson)}.${part(payloadJson)}`
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`
}
