/**
 * The sign-in routes (docs/gateway.md, "People: users, sessions and sign-in"): `POST /api/login`, `POST /api/logout`
 * and `GET /api/me`. They are the gateway's own: registered before the catch-all, they are never forwarded.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { GatewayConfig } from '../config/gateway-config.js'
import { cameOverTls, sessionCookie } from './cookies.js'
import type { People } from './people.js'
import { sessionTokenOf, type CallerVerdict } from './request-identity.js'

export type IdentifyRequest = (request: FastifyRequest) => Promise<CallerVerdict | undefined>

const CREDENTIALS_SHAPE = 'send JSON {"username": "...", "password": "..."} with Content-Type: application/json'

/** `{username, password}` from a JSON body (kept as bytes by the gateway's parser), or the problem naming the field. */
export function loginCredentials(
  request: FastifyRequest,
): { username: string; password: string } | { problem: string } {
  const type = String(request.headers['content-type'] ?? '')
  if (!/^application\/json\b/i.test(type)) return { problem: CREDENTIALS_SHAPE }
  let body: unknown
  try {
    body = JSON.parse(Buffer.isBuffer(request.body) ? request.body.toString('utf8') : '')
  } catch {
    return { problem: `the body is not JSON: ${CREDENTIALS_SHAPE}` }
  }
  const fields = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>
  if (typeof fields.username !== 'string' || fields.username === '')
    return { problem: 'username: a non-empty string is required' }
  if (typeof fields.password !== 'string' || fields.password === '')
    return { problem: 'password: a non-empty string is required' }
  if (fields.username.length > 256 || fields.password.length > 1024) return { problem: 'username or password too long' }
  return { username: fields.username, password: fields.password }
}

function clearCookie(request: FastifyRequest, reply: FastifyReply, config: GatewayConfig['people']): void {
  reply.header(
    'set-cookie',
    sessionCookie('', { maxAgeSeconds: 0, secure: cameOverTls(request), domain: config.cookieDomain }),
  )
}

export function registerPeopleRoutes(
  app: FastifyInstance,
  people: People,
  config: GatewayConfig['people'],
  identifyRequest: IdentifyRequest,
): void {
  app.post('/api/login', async (request, reply) => {
    reply.header('cache-control', 'no-store')
    const credentials = loginCredentials(request)
    if ('problem' in credentials) return reply.code(400).send({ error: credentials.problem })
    const result = await people.login(credentials.username, credentials.password)
    if (!result.ok) {
      if (result.retryAfterS !== undefined) reply.header('retry-after', String(result.retryAfterS))
      return reply.code(result.status).send({ error: result.error })
    }
    const maxAgeSeconds = Math.max(0, Math.floor((result.expiresAt.getTime() - Date.now()) / 1000))
    reply.header(
      'set-cookie',
      sessionCookie(result.token, { maxAgeSeconds, secure: cameOverTls(request), domain: config.cookieDomain }),
    )
    return reply.send({
      user: {
        name: result.user.name,
        tenant: result.user.tenantName,
        tenantId: result.user.tenantId,
        role: result.user.role,
      },
      token: result.token,
      expiresAt: result.expiresAt.toISOString(),
    })
  })

  app.post('/api/logout', async (request, reply) => {
    reply.header('cache-control', 'no-store')
    const token = sessionTokenOf(request)
    const ended = token === undefined ? false : await people.logout(token)
    clearCookie(request, reply, config)
    return reply.send({ loggedOut: ended })
  })

  app.get('/api/me', async (request, reply) => {
    reply.header('cache-control', 'no-store')
    const verdict = await identifyRequest(request)
    if (!verdict) return reply.code(401).send({ error: 'Authentication required' })
    if (!verdict.ok) return reply.code(verdict.status).send({ error: verdict.error })
    const { caller } = verdict
    if (caller.user) {
      return reply.send({
        user: { name: caller.user.name, tenant: caller.tenantName, tenantId: caller.tenantId, role: caller.role },
        expiresAt: caller.user.expiresAt.toISOString(),
      })
    }
    return reply.send({
      key: { id: caller.key?.id ?? null, tenant: caller.tenantName, tenantId: caller.tenantId, role: caller.role },
    })
  })
}
