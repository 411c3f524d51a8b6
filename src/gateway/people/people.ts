/**
 * What the gateway holds for people (docs/gateway.md, "People: users, sessions and sign-in"): the session verifier,
 * the login throttle, and password login itself.
 */
import { randomBytes } from 'node:crypto'
import type pg from 'pg'
import { scryptHash, secretMatches } from '../keys/api-key.js'
import type { GatewayConfig } from '../config/gateway-config.js'
import { LoginThrottle } from './login-throttle.js'
import { SessionVerifier } from './session-verifier.js'
import { createSession, deleteSession, pruneSessions } from './sessions.js'
import { sessionTokenHash } from './session-token.js'
import { userByName, type StoredUser } from './users.js'

export type LoginResult =
  | { readonly ok: true; readonly user: StoredUser; readonly token: string; readonly expiresAt: Date }
  | {
      readonly ok: false
      readonly status: 401 | 403 | 429 | 503
      readonly error: string
      readonly retryAfterS?: number
    }

/**
 * Password checks running at once, at most. scrypt runs on libuv's thread pool (4 threads by default), which DNS
 * lookups for the brokers share: a flood of sign-ins with ever new names must not slow the forwarding down.
 */
const MAX_CHECKS_IN_FLIGHT = 8

/** The one answer to a wrong name or a wrong password: which of the two it was is never said. */
export const LOGIN_REFUSED = 'Invalid username or password'

export class People {
  readonly sessions: SessionVerifier
  readonly throttle = new LoginThrottle()
  private readonly db: pg.Pool
  private readonly config: GatewayConfig['people']
  /** A hash to check unknown names against, so they cost the same scrypt as a wrong password. */
  private readonly decoy: Promise<{ salt: Buffer; hash: Buffer }>
  private checksInFlight = 0

  constructor(db: pg.Pool, isListening: () => boolean, config: GatewayConfig['people']) {
    this.db = db
    this.config = config
    this.sessions = new SessionVerifier(db, isListening)
    const salt = randomBytes(16)
    this.decoy = scryptHash(randomBytes(16).toString('hex'), salt).then((hash) => ({ salt, hash }))
  }

  /** A change notification on the key channel (001 and 003 schema triggers). */
  changed(payload: string): void {
    this.sessions.changed(payload)
  }

  forgetStates(): void {
    this.sessions.forgetStates()
  }

  async login(username: string, password: string): Promise<LoginResult> {
    const waitMs = this.throttle.waitMs(username)
    if (waitMs > 0) {
      return {
        ok: false,
        status: 429,
        error: 'Too many failed sign-ins; retry later',
        retryAfterS: Math.ceil(waitMs / 1000),
      }
    }
    if (this.checksInFlight >= MAX_CHECKS_IN_FLIGHT) {
      return { ok: false, status: 503, error: 'Too many sign-ins at once; retry later', retryAfterS: 1 }
    }
    this.checksInFlight += 1
    let user: StoredUser | undefined
    let matches: boolean
    try {
      user = await userByName(this.db, username)
      const stored = user?.salt && user.hash ? { salt: user.salt, hash: user.hash } : await this.decoy
      matches = await secretMatches(password, stored.salt, stored.hash)
    } finally {
      this.checksInFlight -= 1
    }
    if (!user || !user.hash || !matches) {
      this.throttle.failed(username)
      return { ok: false, status: 401, error: LOGIN_REFUSED }
    }
    this.throttle.succeeded(username)
    if (user.tenantStatus !== 'active') return { ok: false, status: 403, error: 'Tenant suspended' }
    // Expired sessions are refused anyway; removing them at sign-in keeps the table the size of the live ones.
    await pruneSessions(this.db)
    const session = await createSession(this.db, user.id, this.config.sessionTtlS)
    return { ok: true, user, token: session.token, expiresAt: session.expiresAt }
  }

  /** Starts a session for a user found another way (OpenID Connect). */
  async startSession(userId: string): Promise<{ token: string; expiresAt: Date }> {
    return createSession(this.db, userId, this.config.sessionTtlS)
  }

  /** Ends a session here at once and, through the database's notification, on every other replica. */
  async logout(token: string): Promise<boolean> {
    const ended = await deleteSession(this.db, token)
    this.sessions.changed(`session:${sessionTokenHash(token).toString('hex')}`)
    return ended
  }
}
