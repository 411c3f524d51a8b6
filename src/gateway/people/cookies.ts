/**
 * The session cookie (docs/gateway.md, "People: users, sessions and sign-in"): httpOnly so page scripts never read
 * it, SameSite=Lax so another site's form cannot use it, Secure when the browser reached us over TLS.
 */
import type { FastifyRequest } from 'fastify'

export const SESSION_COOKIE = 'queen_session'

/** The value of cookie `name` in a Cookie header, if present. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined
  for (const part of header.split(';')) {
    const at = part.indexOf('=')
    if (at === -1) continue
    if (part.slice(0, at).trim() === name) return part.slice(at + 1).trim()
  }
  return undefined
}

/** Whether the client's connection was TLS: ours, or a TLS-terminating proxy's `X-Forwarded-Proto: https`. */
export function cameOverTls(request: FastifyRequest): boolean {
  if ((request.raw.socket as { encrypted?: boolean }).encrypted === true) return true
  const forwarded = request.headers['x-forwarded-proto']
  const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim().toLowerCase()
  return first === 'https'
}

/** The Set-Cookie value that stores `token` for `maxAgeSeconds` (0 clears it). */
export function sessionCookie(
  token: string,
  options: { maxAgeSeconds: number; secure: boolean; domain?: string },
): string {
  const parts = [`${SESSION_COOKIE}=${token}`, 'Path=/', `Max-Age=${options.maxAgeSeconds}`, 'HttpOnly', 'SameSite=Lax']
  if (options.domain) parts.push(`Domain=${options.domain}`)
  if (options.secure) parts.push('Secure')
  return parts.join('; ')
}

/** A Cookie header without the session cookie (brokers never see a session), undefined when nothing is left. */
export function withoutSessionCookie(header: string | undefined): string | undefined {
  if (header === undefined) return undefined
  const kept = header
    .split(';')
    .map((part) => part.trim())
    .filter((part) => part !== '' && part.split('=', 1)[0]!.trim() !== SESSION_COOKIE)
  return kept.length > 0 ? kept.join('; ') : undefined
}
