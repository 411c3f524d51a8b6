/**
 * Token verification (docs/operations.md, "Token verification" and "Claims and roles"): the `Authorization: Bearer`
 * header, the signature with the pinned algorithms and keys, `exp`/`nbf`/`iat` with the clock skew, `iss`/`aud`, then
 * the role. Every failure maps to one of the 401 messages of docs/http-api.md, "Auth classes" and a reason label for
 * `queen_auth_failures_total`. The key is chosen by the broker, never by the token: `jku`, `x5u` and an embedded `jwk`
 * are not read.
 */
import { errors, jwtVerify, type CryptoKey, type FlattenedJWSInput, type JWSHeaderParameters } from 'jose'
import type { AuthConfig } from '../config/broker-config.js'
import type { RequestIdentity } from './identity.js'
import { repeatedKey } from './duplicate-keys.js'
import { JwksUnavailableError } from './jwks.js'
import type { VerificationKeys } from './keys.js'
import type { AuthFailureReason } from '../observe/auth-failure-reasons.js'
import { roleOf } from './roles.js'

/** The outcome of checking one request's header. */
export type Verification =
  { ok: true; identity: RequestIdentity } | { ok: false; reason: AuthFailureReason; message: string; detail?: string }

/** The claim checks and role names verification reads. */
export type VerifyConfig = Pick<
  AuthConfig,
  'issuer' | 'audience' | 'clockSkewSeconds' | 'requireExp' | 'rolesClaim' | 'rolesArrayClaim' | 'roles'
>

/** `Bearer` (any case), one or more spaces, then the token; nothing else is accepted. */
const BEARER = /^Bearer +([^\s]+) *$/i

/** Verifies bearer tokens against the boot-time keys. */
export class TokenVerifier {
  private readonly keys: VerificationKeys
  private readonly config: VerifyConfig

  constructor(keys: VerificationKeys, config: VerifyConfig) {
    this.keys = keys
    this.config = config
  }

  /** Checks an `Authorization` header value. */
  async verify(authorization: string | undefined): Promise<Verification> {
    if (authorization === undefined || authorization.trim() === '') {
      return { ok: false, reason: 'missing', message: 'Authentication required' }
    }
    const token = BEARER.exec(authorization)?.[1]
    if (token === undefined) return { ok: false, reason: 'malformed', message: 'Authentication required' }
    try {
      const { payload } = await jwtVerify(token, (header, input) => this.keyFor(header, input), {
        algorithms: this.keys.algorithms,
        issuer: this.config.issuer,
        audience: this.config.audience,
        clockTolerance: this.config.clockSkewSeconds,
        requiredClaims: this.config.requireExp ? ['exp'] : [],
      })
      const repeated = repeatedKeyOf(token)
      if (repeated !== undefined) {
        return {
          ok: false,
          reason: 'repeated_key',
          message: `Invalid token: the ${repeated.part} repeats the key ${JSON.stringify(repeated.key.slice(0, 64))}`,
        }
      }
      // jose checks `iat` against the clock only with maxTokenAge; a token issued in the future is not valid yet.
      if (typeof payload.iat === 'number' && payload.iat > Date.now() / 1000 + this.config.clockSkewSeconds) {
        return { ok: false, reason: 'not_yet_valid', message: 'Token not yet valid', detail: '"iat" is in the future' }
      }
      const claims = payload as Record<string, unknown>
      return {
        ok: true,
        identity: {
          sub: typeof payload.sub === 'string' ? payload.sub : null,
          role: roleOf(claims, this.config),
          claims,
        },
      }
    } catch (error) {
      return failureOf(error)
    }
  }

  /** The static key for tokens without a `kid` (or without JWKS), the JWKS for the others. */
  private keyFor(header: JWSHeaderParameters, input: FlattenedJWSInput): Promise<CryptoKey | Uint8Array> {
    const { secret, publicKey, jwks } = this.keys
    if (header.alg === 'HS256') {
      if (secret !== undefined) return Promise.resolve(secret)
    } else if (jwks !== undefined && (header.kid !== undefined || publicKey === undefined)) {
      return jwks.getKey(header, input)
    } else if (publicKey !== undefined && publicKey.algorithm === header.alg) {
      return Promise.resolve(publicKey.key)
    }
    return Promise.reject(new errors.JOSEAlgNotAllowed(`no key for "alg" ${String(header.alg)}`))
  }
}

/** A key repeated in the header or payload of a signed token (auth/duplicate-keys.ts says why that is refused). */
function repeatedKeyOf(token: string): { part: 'header' | 'payload'; key: string } | undefined {
  const [header = '', payload = ''] = token.split('.')
  for (const [part, encoded] of [
    ['header', header],
    ['payload', payload],
  ] as const) {
    const key = repeatedKey(Buffer.from(encoded, 'base64url').toString('utf8'))
    if (key !== undefined) return { part, key }
  }
  return undefined
}

function failureOf(error: unknown): Verification {
  const detail = (error as Error).message
  if (error instanceof errors.JWTExpired) {
    return { ok: false, reason: 'expired', message: 'Token has expired', detail }
  }
  if (error instanceof errors.JWTClaimValidationFailed) {
    switch (error.claim) {
      case 'nbf':
        return { ok: false, reason: 'not_yet_valid', message: 'Token not yet valid', detail }
      case 'iss':
        return { ok: false, reason: 'invalid_issuer', message: 'Invalid token issuer', detail }
      case 'aud':
        return { ok: false, reason: 'invalid_audience', message: 'Invalid token audience', detail }
      case 'exp':
        return { ok: false, reason: 'missing_exp', message: 'Invalid token', detail }
      default:
        return { ok: false, reason: 'invalid', message: 'Invalid token', detail }
    }
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) {
    return { ok: false, reason: 'invalid_signature', message: 'Invalid token signature', detail }
  }
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys) {
    return { ok: false, reason: 'unknown_key', message: 'Invalid token signature', detail }
  }
  if (error instanceof errors.JOSEAlgNotAllowed) {
    return { ok: false, reason: 'invalid_algorithm', message: 'Invalid token', detail }
  }
  if (error instanceof JwksUnavailableError) {
    return { ok: false, reason: 'jwks_unavailable', message: 'Invalid token', detail }
  }
  return { ok: false, reason: 'invalid', message: 'Invalid token', detail }
}
