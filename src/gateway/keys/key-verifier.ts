/**
 * Verifies presented API keys (docs/gateway.md, "Tenants and API keys"). The scrypt check runs once per key per
 * gateway; the key's state (revoked, expired, tenant suspended) is cached while the key-change listener hears every
 * change, and re-read at most a second old when it does not, so revocation reaches every replica within 2 s.
 */
import type pg from 'pg'
import { keyDigest, parseApiKey, secretMatches, type KeyRole } from './api-key.js'
import { keyById, keyByPrefix, type StoredKey } from '../store/api-keys.js'

/** A key that may be used. */
export interface KeyIdentity {
  readonly keyId: string
  readonly tenantId: string
  readonly tenantName: string
  readonly role: KeyRole
}

/** The verdict on a presented key. */
export type KeyVerdict =
  | { readonly ok: true; readonly identity: KeyIdentity }
  | { readonly ok: false; readonly status: 401 | 403; readonly error: string }

interface CacheEntry {
  key: StoredKey
  checkedAt: number
}

/** Verdicts older than this are re-read from the database even while listening (a backstop, not the mechanism). */
const LISTENING_MAX_AGE_MS = 60_000
/** Without the listener, a cached state is trusted for this long: inside the 2 s revocation promise. */
const DEAF_MAX_AGE_MS = 1000
const MAX_ENTRIES = 10_000
const MAX_FAILED = 10_000

export class KeyVerifier {
  /** Digest of a presented key -> its stored row, once the secret matched. */
  private readonly entries = new Map<string, CacheEntry>()
  /** Digests of keys whose secret did not match, so a repeated wrong key costs no scrypt (bounded). */
  private readonly failed = new Set<string>()
  /** Digest -> the check under way, so a burst of first requests with one key runs one scrypt, not one each. */
  private readonly checking = new Map<string, Promise<CacheEntry | undefined>>()
  /** Key id -> last time it was used, written by the last-used flush. */
  private readonly usage = new Map<string, Date>()

  private readonly db: pg.Pool
  private readonly isListening: () => boolean
  private readonly now: () => number

  constructor(db: pg.Pool, isListening: () => boolean, now: () => number = Date.now) {
    this.db = db
    this.isListening = isListening
    this.now = now
  }

  async verify(presented: string): Promise<KeyVerdict> {
    const parsed = parseApiKey(presented)
    if (!parsed) return { ok: false, status: 401, error: 'Invalid API key' }
    const digest = keyDigest(presented)
    if (this.failed.has(digest)) return { ok: false, status: 401, error: 'Invalid API key' }
    let entry = this.entries.get(digest)
    if (entry && this.now() - entry.checkedAt > (this.isListening() ? LISTENING_MAX_AGE_MS : DEAF_MAX_AGE_MS)) {
      const fresh = await keyById(this.db, entry.key.id)
      entry = fresh ? this.remember(digest, fresh) : undefined
      if (!fresh) this.entries.delete(digest)
    }
    if (!entry) {
      let check = this.checking.get(digest)
      if (!check) {
        check = this.firstCheck(digest, parsed).finally(() => this.checking.delete(digest))
        this.checking.set(digest, check)
      }
      entry = await check
      if (!entry) return { ok: false, status: 401, error: 'Invalid API key' }
    }
    return this.judge(entry.key)
  }

  /** Reads the key by its prefix and checks the secret with scrypt; remembers the outcome either way. */
  private async firstCheck(
    digest: string,
    parsed: { prefix: string; secret: string },
  ): Promise<CacheEntry | undefined> {
    const stored = await keyByPrefix(this.db, parsed.prefix)
    if (!stored || !(await secretMatches(parsed.secret, stored.salt, stored.hash))) {
      this.rememberFailure(digest)
      return undefined
    }
    return this.remember(digest, stored)
  }

  private judge(key: StoredKey): KeyVerdict {
    if (key.revokedAt !== null) return { ok: false, status: 401, error: 'API key revoked' }
    if (key.expiresAt !== null && key.expiresAt.getTime() <= this.now()) {
      return { ok: false, status: 401, error: 'API key expired' }
    }
    if (key.tenantStatus !== 'active') return { ok: false, status: 403, error: 'Tenant suspended' }
    this.usage.set(key.id, new Date(this.now()))
    return { ok: true, identity: { keyId: key.id, tenantId: key.tenantId, tenantName: key.tenantName, role: key.role } }
  }

  private remember(digest: string, key: StoredKey): CacheEntry {
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!)
    const entry = { key, checkedAt: this.now() }
    this.entries.set(digest, entry)
    return entry
  }

  private rememberFailure(digest: string): void {
    if (this.failed.size >= MAX_FAILED) this.failed.delete(this.failed.values().next().value!)
    this.failed.add(digest)
  }

  /** A `queen_proxy_keys` notification: `key:<id>` or `tenant:<id>`; the matching entries are re-read on next use. */
  changed(payload: string): void {
    const [kind, id] = payload.split(':', 2)
    for (const entry of this.entries.values()) {
      if ((kind === 'key' && entry.key.id === id) || (kind === 'tenant' && entry.key.tenantId === id))
        entry.checkedAt = 0
    }
    // A key created after a failed attempt has a new digest, so failures need no invalidation.
  }

  /** The listener was down for a while: every cached state is re-read on next use. */
  forgetStates(): void {
    for (const entry of this.entries.values()) entry.checkedAt = 0
  }

  /** Takes the last-used times gathered since the previous call. */
  drainUsage(): Map<string, Date> {
    const taken = new Map(this.usage)
    this.usage.clear()
    return taken
  }

  /** Gives back usage a failed flush could not write. */
  restoreUsage(usage: ReadonlyMap<string, Date>): void {
    for (const [id, at] of usage) {
      const current = this.usage.get(id)
      if (!current || current < at) this.usage.set(id, at)
    }
  }
}
