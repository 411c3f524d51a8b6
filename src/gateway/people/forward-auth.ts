/**
 * ForwardAuth (docs/gateway.md, "People: users, sessions and sign-in"): Traefik's ForwardAuth and nginx's
 * `auth_request` ask `/proxy/auth/verify` whether a request may pass. 200 with the identity headers for a valid
 * session or key; for a browser without one, a redirect to the sign-in page only when the original URL's host is on
 * `PROXY_AUTH_REDIRECT_ALLOWLIST`; otherwise 401 (an empty or unmatched list fails closed).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { GatewayConfig } from '../config/gateway-config.js'
import type { IdentifyRequest } from './people-routes.js'
import { allowedTarget } from './redirects.js'

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name]
  return Array.isArray(value) ? value[0] : value
}

/** The URL the user asked for: Traefik's X-Forwarded-Proto/Host/Uri, or nginx's conventional X-Original-URL. */
export function originalUrl(request: FastifyRequest): string | undefined {
  const original = header(request, 'x-original-url')
  if (original !== undefined) return original
  const host = header(request, 'x-forwarded-host')
  if (host === undefined) return undefined
  const proto = header(request, 'x-forwarded-proto')?.split(',')[0]?.trim() || 'https'
  return `${proto}://${host}${header(request, 'x-forwarded-uri') ?? '/'}`
}

function wantsHtml(request: FastifyRequest): boolean {
  return /\btext\/html\b/i.test(header(request, 'accept') ?? '')
}

export function registerForwardAuth(
  app: FastifyInstance,
  config: GatewayConfig['people'],
  identifyRequest: IdentifyRequest,
): void {
  app.all('/proxy/auth/verify', async (request, reply) => {
    reply.header('cache-control', 'no-store')
    const verdict = await identifyRequest(request)
    if (verdict?.ok) {
      const { caller } = verdict
      return reply
        .headers({
          'x-queen-user': caller.user?.name ?? caller.subject,
          'x-queen-tenant-id': caller.tenantId,
          'x-queen-tenant': caller.tenantName,
          'x-queen-role': caller.role,
        })
        .code(200)
        .send({ ok: true })
    }
    const error = verdict?.error ?? 'Authentication required'
    const status = verdict?.status ?? 401
    if (status === 401 && config.loginUrl !== undefined && wantsHtml(request)) {
      const target = allowedTarget(originalUrl(request), config.redirectAllowlist)
      if (target) {
        const login = new URL(config.loginUrl)
        login.searchParams.set('rd', target.href)
        return reply.redirect(login.href, 302)
      }
    }
    return reply.code(status).send({ error })
  })
}
