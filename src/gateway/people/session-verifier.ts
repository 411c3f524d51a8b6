/**
 * Verifies session tokens (docs/gateway.md, "People: users, sessions and sign-in") the way key-verifier.ts verifies
 * keys: a session's row is cached under its hash while the change listener hears every logout, user deletion and
 * tenant change, and re-read at most a second old when it does not, so a logout reaches every replica within 2 s.
 */
import type pg from 'pg'
import type { KeyRole } from '../keys/api-key.js'
import { sessionByHash, type StoredSession } from './sessions.js'
import { sessionTokenHash } from './session-token.js'

/** The person behind a valid session. */
export interface SessionIdentity {
  readonly userId: string
  readonly userName: string
  readonly tenantId: string
  readonly tenantName: string
  readonly role: KeyRole
  readonly expiresAt: Date
}

export type SessionVerdict =
  | { readonly ok: true; readonly identity: SessionIdentity }
  | { readonly ok: false; readonly status: 401 | 403; readonly error: string }

interface CacheEntry {
  session: StoredSession
  checkedAt: number
}

// The same bounds as key-verifier.ts: a backstop while listening, inside the 2 s promise while deaf.
const LISTENING_MAX_AGE_MS = 60_000
const DEAF_MAX_AGE_MS = 1000
const MAX_ENTRIES = 10_000

export class SessionVerifier {
  /** Hex hash of a token -> its row. Unknown tokens are not cached: their lookup is one indexed read, no scrypt. */
  private readonly entries = new Map<string, CacheEntry>()
  private readonly db: pg.Pool
  private readonly isListening: () => boolean
  private readonly now: () => number

  constructor(db: pg.Pool, isListening: () => boolean, now: () => number = Date.now) {
    this.db = db
    this.isListening = isListening
    this.now = now
  }

  async verify(token: string): Promise<SessionVerdict> {
    const hash = sessionTokenHash(token)
    const id = hash.toString('hex')
    let entry = this.entries.get(id)
    if (entry && this.now() - entry.checkedAt > (this.isListening() ? LISTENING_MAX_AGE_MS : DEAF_MAX_AGE_MS)) {
      this.entries.delete(id)
      entry = undefined
    }
    if (!entry) {
      const session = await sessionByHash(this.db, hash)
      if (!session) return { ok: false, status: 401, error: 'Session expired or ended' }
      if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!)
      entry = { session, checkedAt: this.now() }
      this.entries.set(id, entry)
    }
    const session = entry.session
    if (session.expiresAt.getTime() <= this.now()) return { ok: false, status: 401, error: 'Session expired or ended' }
    if (session.tenantStatus !== 'active') return { ok: false, status: 403, error: 'Tenant suspended' }
    return {
      ok: true,
      identity: {
        userId: session.userId,
        userName: session.userName,
        tenantId: session.tenantId,
        tenantName: session.tenantName,
        role: session.role,
        expiresAt: session.expiresAt,
      },
    }
  }

  /** A change notification: `session:<hash>`, `user:<id>` or `tenant:<id>` drops the matching cached sessions. */
  changed(payload: string): void {
    const [kind, id] = payload.split(':', 2)
    if (kind === 'session' && id !== undefined) {
      this.entries.delete(id)
      return
    }
    for (const [hash, entry] of this.entries) {
      if ((kind === 'user' && entry.session.userId === id) || (kind === 'tenant' && entry.session.tenantId === id)) {
        this.entries.delete(hash)
      }
    }
  }

  /** The listener was down for a while: every cached session is re-read on next use. */
  forgetStates(): void {
    this.entries.clear()
  }
}
