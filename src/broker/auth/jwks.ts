/**
 * The JWKS key set (docs/operations.md, "JWKS"). jose's `createRemoteJWKSet` measures its cooldown from the last
 * successful fetch and drops the keys when a refresh fails, so a failing endpoint would turn a flood of
 * unknown `kid`s into a flood of fetches and lock every caller out. This cache keeps the last good set and
 * makes at most one fetch per cooldown, successful or not; jose's local key set selects and imports keys.
 */
import {
  createLocalJWKSet,
  errors,
  type CryptoKey,
  type FlattenedJWSInput,
  type JSONWebKeySet,
  type JWSHeaderParameters,
} from 'jose'

/** How a JWKS fetch ended (`queen_jwks_fetches_total{outcome}`). */
export type JwksFetchOutcome = 'ok' | 'error' | 'timeout' | 'invalid'

/** Settings of {@link JwksKeySet}. */
export interface JwksOptions {
  /** Keys are refetched after this long (`JWT_JWKS_REFRESH_INTERVAL`), ms. */
  refreshMs: number
  /** A fetch is aborted after this long (`JWT_JWKS_TIMEOUT_MS`). */
  timeoutMs: number
  /** At most one fetch per this long, whatever triggers it (`JWT_JWKS_COOLDOWN_MS`). */
  cooldownMs: number
  /** Called after every fetch, with the reason when it failed. */
  onFetch(outcome: JwksFetchOutcome, error?: string): void
}

/** Raised when no key set has ever been fetched: the token cannot be checked. */
export class JwksUnavailableError extends Error {
  constructor(cause: string) {
    super(`no JWKS key set available: ${cause}`)
    this.name = 'JwksUnavailableError'
  }
}

/** A key set is a few KiB; anything this large is not one. */
const MAX_JWKS_BYTES = 1024 * 1024
/** Only asymmetric public keys verify tokens from a JWKS; a stray `oct` key must never become an HS secret. */
const PUBLIC_KEY_TYPES = new Set(['RSA', 'OKP'])

type LocalSet = ReturnType<typeof createLocalJWKSet>

/** The remote key set of `JWT_JWKS_URL`, usable as a jose key resolver through {@link getKey}. */
export class JwksKeySet {
  private local: LocalSet | undefined
  private fetchedAt = Number.NEGATIVE_INFINITY
  private attemptedAt = Number.NEGATIVE_INFINITY
  private lastError = 'not fetched yet'
  private pending: Promise<void> | undefined

  private readonly url: URL
  private readonly options: JwksOptions
  private readonly fetchImpl: typeof fetch

  constructor(url: URL, options: JwksOptions, fetchImpl: typeof fetch = fetch) {
    this.url = url
    this.options = options
    this.fetchImpl = fetchImpl
  }

  /** The key for a token's header: refreshes a stale set, and refetches once per cooldown for an unknown kid. */
  async getKey(header: JWSHeaderParameters, token: FlattenedJWSInput): Promise<CryptoKey> {
    if (Date.now() - this.fetchedAt >= this.options.refreshMs) await this.refresh()
    const local = this.local
    if (local === undefined) throw new JwksUnavailableError(this.lastError)
    try {
      return await local(header, token)
    } catch (error) {
      if (!(error instanceof errors.JWKSNoMatchingKey) || !(await this.refresh())) throw error
      return (this.local ?? local)(header, token)
    }
  }

  /**
   * Fetches the set unless a fetch ran within the cooldown; concurrent callers share one fetch. Resolves
   * true when a fetch ran (whatever its outcome), false when the cooldown held it back.
   */
  private async refresh(): Promise<boolean> {
    if (this.pending === undefined) {
      if (Date.now() - this.attemptedAt < this.options.cooldownMs) return false
      this.attemptedAt = Date.now()
      this.pending = this.fetchOnce().finally(() => {
        this.pending = undefined
      })
    }
    await this.pending
    return true
  }

  private async fetchOnce(): Promise<void> {
    let outcome: JwksFetchOutcome = 'ok'
    let reason: string | undefined
    try {
      const set = await this.download()
      this.local = createLocalJWKSet(set)
      this.fetchedAt = Date.now()
    } catch (error) {
      const failure = error as Error
      outcome = failure.name === 'TimeoutError' ? 'timeout' : error instanceof InvalidKeySet ? 'invalid' : 'error'
      reason = outcome === 'timeout' ? `timed out after ${this.options.timeoutMs} ms` : failure.message
      this.lastError = reason
    }
    this.options.onFetch(outcome, reason)
  }

  private async download(): Promise<JSONWebKeySet> {
    const response = await this.fetchImpl(this.url, {
      signal: AbortSignal.timeout(this.options.timeoutMs),
      redirect: 'manual',
      headers: { accept: 'application/json, application/jwk-set+json' },
    })
    if (response.status !== 200) throw new Error(`JWKS endpoint answered HTTP ${response.status}`)
    const text = await response.text()
    if (text.length > MAX_JWKS_BYTES) throw new InvalidKeySet(`JWKS is larger than ${MAX_JWKS_BYTES} bytes`)
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      throw new InvalidKeySet('JWKS is not JSON')
    }
    const keys = (parsed as { keys?: unknown } | null)?.keys
    if (!Array.isArray(keys)) throw new InvalidKeySet('JWKS has no "keys" array')
    const usable = keys.filter(
      (key): key is JSONWebKeySet['keys'][number] =>
        typeof key === 'object' && key !== null && PUBLIC_KEY_TYPES.has((key as { kty?: unknown }).kty as string),
    )
    if (usable.length === 0) throw new InvalidKeySet('JWKS holds no RSA or OKP public key')
    return { keys: usable }
  }
}

class InvalidKeySet extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'InvalidKeySet'
  }
}
