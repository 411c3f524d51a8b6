/**
 * The auth hook (an onRequest hook, docs/operations.md, "Authentication"): decided on the routed path
 * (`request.routeOptions.url`), so `..`, `//` and percent-encoding cannot dodge it. Public routes and
 * `JWT_SKIP_PATHS` pass; every other route needs a valid bearer token (401) whose role reaches the route's
 * class in the route table (403). Sets `request.identity`.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { classAllows, routeRule } from './route-classes.js'
import { classOfRole } from './roles.js'
import { isSkipPath } from './skip-paths.js'
import type { AuthFailureReason } from '../observe/auth-failure-reasons.js'

/** Answers a refused request (401 or 403) with the shapes of docs/http-api.md, "Auth classes", and counts it. */
export async function refuse(
  request: FastifyRequest,
  reply: FastifyReply,
  status: 401 | 403,
  reason: AuthFailureReason,
  message: string,
): Promise<void> {
  request.server.broker.events.emit('authFailed', reason)
  if (status === 401) void reply.header('WWW-Authenticate', 'Bearer')
  await reply
    .code(status)
    .send({ error: message, code: status === 401 ? 'QUEEN_ERR_UNAUTHORIZED' : 'QUEEN_ERR_FORBIDDEN' })
}

/** The hook; a no-op while JWT_ENABLED is false. */
export async function authenticate(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const auth = request.server.auth
  if (auth.verifier === undefined) return
  const route = request.routeOptions.url
  // No route: the not-found handler answers, and it serves nothing.
  if (route === undefined) return
  // A route missing from the table is admin-only (fail closed); a test keeps the table complete.
  const needed = routeRule(request.method, route)?.auth ?? 'admin'
  if (needed === 'public') return
  const path = request.url.split('?', 1)[0] ?? ''
  if (isSkipPath(auth.skipPaths, route, path)) return

  const verification = await auth.verifier.verify(request.headers.authorization)
  if (!verification.ok) {
    request.log.debug({ reason: verification.reason, detail: verification.detail, route }, 'auth refused')
    return refuse(request, reply, 401, verification.reason, verification.message)
  }
  request.identity = verification.identity
  if (!classAllows(classOfRole(verification.identity.role), needed)) {
    return refuse(request, reply, 403, 'forbidden', 'Insufficient permissions')
  }
}
