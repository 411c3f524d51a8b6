/**
 * Who a request comes from (docs/gateway.md, "People: users, sessions and sign-in"): an API key (`qk_`) or a session
 * token (`qs_`) in `Authorization: Bearer`, else the session cookie. Both end as a tenant and a role, so every route
 * check and the tenancy rewrite treat a signed-in person exactly like a key of the same tenant and role.
 */
import type { FastifyRequest } from 'fastify'
import type { KeyRole } from '../keys/api-key.js'
import type { KeyVerifier } from '../keys/key-verifier.js'
import { cookieValue, SESSION_COOKIE } from './cookies.js'
import type { SessionVerifier } from './session-verifier.js'
import { isSessionToken } from './session-token.js'

export interface Caller {
  /** The subject of minted broker tokens: `apikey:<key id>` or `user:<user id>`. */
  readonly subject: string
  readonly tenantId: string
  readonly tenantName: string
  readonly role: KeyRole
  readonly key?: { readonly id: string }
  readonly user?: { readonly id: string; readonly name: string; readonly expiresAt: Date }
}

export type CallerVerdict =
  | { readonly ok: true; readonly caller: Caller }
  | { readonly ok: false; readonly status: 401 | 403; readonly error: string }

export function bearerOf(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization
  if (typeof header !== 'string') return undefined
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header)
  return match?.[1]
}

/** The session token a request carries (bearer `qs_`, else the cookie), if any. */
export function sessionTokenOf(request: FastifyRequest): string | undefined {
  const bearer = bearerOf(request)
  if (bearer !== undefined) return isSessionToken(bearer) ? bearer : undefined
  const cookie = cookieValue(request.headers.cookie, SESSION_COOKIE)
  return cookie !== undefined && isSessionToken(cookie) ? cookie : undefined
}

/**
 * A change sent with the cookie from a page of another origin. SameSite=Lax already keeps the cookie off other
 * sites' POSTs; this also refuses sibling hosts of the same site (`evil.example.com` against `queen.example.com`).
 * Requests without an Origin header (not from a browser page) are not affected.
 */
function crossOriginWrite(request: FastifyRequest): boolean {
  if (request.method === 'GET' || request.method === 'HEAD' || request.method === 'OPTIONS') return false
  const origin = request.headers.origin
  if (origin === undefined) return false
  let host: string
  try {
    host = new URL(origin).host
  } catch {
    return true
  }
  const forwarded = request.headers['x-forwarded-host']
  const hosts = [request.headers.host, ...(Array.isArray(forwarded) ? forwarded : [forwarded])]
  return !hosts.some((candidate) => candidate !== undefined && candidate.split(',')[0]!.trim() === host)
}

/** The verdict on a request's credentials; undefined when it presents none. */
export async function identify(
  request: FastifyRequest,
  keys: KeyVerifier,
  sessions: SessionVerifier,
): Promise<CallerVerdict | undefined> {
  const bearer = bearerOf(request)
  if (bearer !== undefined && !isSessionToken(bearer)) {
    const verdict = await keys.verify(bearer)
    if (!verdict.ok) return verdict
    const identity = verdict.identity
    return {
      ok: true,
      caller: {
        subject: `apikey:${identity.keyId}`,
        tenantId: identity.tenantId,
        tenantName: identity.tenantName,
        role: identity.role,
        key: { id: identity.keyId },
      },
    }
  }
  const token = sessionTokenOf(request)
  if (token === undefined) return undefined
  if (bearer === undefined && crossOriginWrite(request)) {
    return { ok: false, status: 403, error: 'Cross-origin request refused' }
  }
  const verdict = await sessions.verify(token)
  if (!verdict.ok) return verdict
  const identity = verdict.identity
  return {
    ok: true,
    caller: {
      subject: `user:${identity.userId}`,
      tenantId: identity.tenantId,
      tenantName: identity.tenantName,
      role: identity.role,
      user: { id: identity.userId, name: identity.userName, expiresAt: identity.expiresAt },
    },
  }
}
