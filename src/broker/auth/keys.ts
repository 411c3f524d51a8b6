/**
 * The keys tokens are verified with, built once at boot from `JWT_ALGORITHM`, `JWT_SECRET`,
 * `JWT_PUBLIC_KEY` and `JWT_JWKS_URL` (docs/operations.md, "Token verification"). The accepted algorithms are pinned
 * per key type: HS256 only with a secret, RS256 or EdDSA only with a public key or JWKS, so `alg: none` or an HS256
 * token "signed" with the RSA public key never verifies. A key the broker cannot use stops the boot.
 */
import { createPublicKey, type KeyObject } from 'node:crypto'
import { importSPKI, type CryptoKey } from 'jose'
import type { AuthConfig } from '../config/broker-config.js'
import { JwksKeySet, type JwksOptions } from './jwks.js'

/** A JWS algorithm the broker can accept. */
export type AcceptedAlgorithm = 'HS256' | 'RS256' | 'EdDSA'

/** What verification uses. */
export interface VerificationKeys {
  /** Every algorithm a token may carry; anything else is refused before a key is looked at. */
  algorithms: AcceptedAlgorithm[]
  /** The HS256 secret. */
  secret?: Uint8Array
  /** The PEM public key and the one algorithm it verifies. */
  publicKey?: { key: CryptoKey; algorithm: 'RS256' | 'EdDSA' }
  /** The remote key set (RS256 and EdDSA keys). */
  jwks?: JwksKeySet
}

/** A setting the broker cannot use; the message names the variable. */
export class AuthConfigError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'AuthConfigError'
  }
}

/** RSA keys below this size are refused by jose at every verification; better at boot. */
const MIN_RSA_BITS = 2048

/** Builds the verification keys; throws {@link AuthConfigError} naming the variable at fault. */
export async function loadVerificationKeys(
  config: Pick<
    AuthConfig,
    'algorithm' | 'secret' | 'publicKey' | 'jwksUrl' | 'jwksRefreshIntervalSeconds' | 'jwksTimeoutMs' | 'jwksCooldownMs'
  >,
  onJwksFetch: JwksOptions['onFetch'],
): Promise<VerificationKeys> {
  const { algorithm } = config
  const wantsSecret = algorithm === 'HS256' || algorithm === 'auto'
  const wantsPublic = algorithm !== 'HS256'
  const keys: VerificationKeys = { algorithms: [] }

  if (wantsSecret && config.secret !== undefined && config.secret !== '') {
    keys.secret = new TextEncoder().encode(config.secret)
    keys.algorithms.push('HS256')
  }
  if (wantsPublic && config.publicKey !== undefined && config.publicKey !== '') {
    keys.publicKey = await importPublicKey(config.publicKey, algorithm === 'auto' ? undefined : algorithm)
    keys.algorithms.push(keys.publicKey.algorithm)
  }
  if (wantsPublic && config.jwksUrl !== undefined && config.jwksUrl !== '') {
    let url: URL
    try {
      url = new URL(config.jwksUrl)
    } catch {
      throw new AuthConfigError(`config error: JWT_JWKS_URL=${JSON.stringify(config.jwksUrl)} is not a URL`)
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      throw new AuthConfigError(`config error: JWT_JWKS_URL=${JSON.stringify(config.jwksUrl)} is not an http(s) URL`)
    }
    keys.jwks = new JwksKeySet(url, {
      refreshMs: config.jwksRefreshIntervalSeconds * 1000,
      timeoutMs: config.jwksTimeoutMs,
      cooldownMs: config.jwksCooldownMs,
      onFetch: onJwksFetch,
    })
    const fromJwks: AcceptedAlgorithm[] = algorithm === 'auto' ? ['RS256', 'EdDSA'] : [algorithm]
    for (const name of fromJwks) if (!keys.algorithms.includes(name)) keys.algorithms.push(name)
  }
  if (keys.algorithms.length === 0) {
    const needs =
      algorithm === 'HS256'
        ? 'JWT_SECRET'
        : algorithm === 'auto'
          ? 'JWT_SECRET, JWT_PUBLIC_KEY or JWT_JWKS_URL'
          : 'JWT_PUBLIC_KEY or JWT_JWKS_URL'
    throw new AuthConfigError(`config error: JWT_ENABLED=true with JWT_ALGORITHM=${algorithm} needs ${needs}`)
  }
  return keys
}

/** Reads `JWT_PUBLIC_KEY` (PEM; `\n` escapes accepted, as env files often carry them). */
async function importPublicKey(
  text: string,
  wanted: 'RS256' | 'EdDSA' | undefined,
): Promise<{ key: CryptoKey; algorithm: 'RS256' | 'EdDSA' }> {
  const pem = text.replace(/\\n/g, '\n').trim()
  if (/PRIVATE KEY/.test(pem)) {
    throw new AuthConfigError('config error: JWT_PUBLIC_KEY holds a private key; give the broker the public key only')
  }
  let parsed: KeyObject
  try {
    parsed = createPublicKey({ key: pem, format: 'pem' })
  } catch (error) {
    throw new AuthConfigError(
      `config error: JWT_PUBLIC_KEY is not a readable PEM public key (${(error as Error).message})`,
    )
  }
  const type = parsed.asymmetricKeyType
  const algorithm = type === 'rsa' ? 'RS256' : type === 'ed25519' ? 'EdDSA' : undefined
  if (algorithm === undefined || (wanted !== undefined && wanted !== algorithm)) {
    const expected = wanted === 'RS256' ? 'an RSA key' : wanted === 'EdDSA' ? 'an Ed25519 key' : 'an RSA or Ed25519 key'
    throw new AuthConfigError(
      `config error: JWT_PUBLIC_KEY is a ${type ?? 'unknown'} key; JWT_ALGORITHM=${wanted ?? 'auto'} needs ${expected}`,
    )
  }
  const bits = parsed.asymmetricKeyDetails?.modulusLength
  if (algorithm === 'RS256' && bits !== undefined && bits < MIN_RSA_BITS) {
    throw new AuthConfigError(
      `config error: JWT_PUBLIC_KEY is a ${bits}-bit RSA key; RS256 needs ${MIN_RSA_BITS} bits or more`,
    )
  }
  const spki = parsed.export({ format: 'pem', type: 'spki' }).toString()
  return { key: await importSPKI(spki, algorithm), algorithm }
}
