/**
 * The OpenID Connect routes (docs/gateway.md, "People: users, sessions and sign-in"): `GET /proxy/oidc/start?rd=`
 * sends the browser to the provider; `GET /proxy/oidc/callback` (PROXY_OIDC_REDIRECT_URL) turns the provider's answer
 * into a session cookie and goes on to `rd` when it is allowed, else to the dashboard.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Logger } from 'pino'
import type { GatewayConfig } from '../config/gateway-config.js'
import { cameOverTls, cookieValue, sessionCookie } from './cookies.js'
import { OIDC_COOKIE, OIDC_FLOW_TTL_S, OidcError, type OidcSignIn } from './oidc.js'
import type { People } from './people.js'
import { afterSignIn } from './redirects.js'

function flowCookie(value: string, maxAgeSeconds: number, secure: boolean): string {
  const parts = [`${OIDC_COOKIE}=${value}`, 'Path=/proxy/oidc', `Max-Age=${maxAgeSeconds}`, 'HttpOnly', 'SameSite=Lax']
  if (secure) parts.push('Secure')
  return parts.join('; ')
}

function queryOf(request: FastifyRequest): string {
  const at = request.url.indexOf('?')
  return at === -1 ? '' : request.url.slice(at)
}

export function registerOidcRoutes(
  app: FastifyInstance,
  people: People,
  config: GatewayConfig['people'],
  oidc: OidcSignIn | undefined,
  log: Logger,
): void {
  const refuse = (reply: FastifyReply, error: unknown) => {
    if (error instanceof OidcError) return reply.code(error.status).send({ error: error.message })
    throw error
  }

  app.get('/proxy/oidc/start', async (request, reply) => {
    reply.header('cache-control', 'no-store')
    if (!oidc) return reply.code(404).send({ error: 'OpenID Connect sign-in is not configured (PROXY_OIDC_ISSUER)' })
    const rd = (request.query as Record<string, unknown> | undefined)?.rd
    try {
      const started = await oidc.start(afterSignIn(typeof rd === 'string' ? rd : undefined, config.redirectAllowlist))
      reply.header('set-cookie', flowCookie(started.cookie, OIDC_FLOW_TTL_S, cameOverTls(request)))
      return reply.redirect(started.url.href, 302)
    } catch (error) {
      log.warn({ err: error }, 'OpenID Connect sign-in could not start')
      return refuse(reply, error)
    }
  })

  app.get('/proxy/oidc/callback', async (request, reply) => {
    reply.header('cache-control', 'no-store')
    if (!oidc) return reply.code(404).send({ error: 'OpenID Connect sign-in is not configured (PROXY_OIDC_ISSUER)' })
    const secure = cameOverTls(request)
    // The flow cookie is used once, whatever the outcome.
    const cookies = [flowCookie('', 0, secure)]
    try {
      const { user, rd } = await oidc.finish(queryOf(request), cookieValue(request.headers.cookie, OIDC_COOKIE))
      if (user.tenantStatus !== 'active') throw new OidcError(403, 'Tenant suspended')
      const session = await people.startSession(user.id)
      const maxAgeSeconds = Math.max(0, Math.floor((session.expiresAt.getTime() - Date.now()) / 1000))
      cookies.push(sessionCookie(session.token, { maxAgeSeconds, secure, domain: config.cookieDomain }))
      reply.header('set-cookie', cookies)
      // Checked again here: the flow cookie came back from the browser.
      return reply.redirect(afterSignIn(rd, config.redirectAllowlist), 302)
    } catch (error) {
      reply.header('set-cookie', cookies)
      log.info({ reason: (error as Error).message }, 'OpenID Connect sign-in refused')
      return refuse(reply, error)
    }
  })
}
