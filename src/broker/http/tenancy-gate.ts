/**
 * The tenancy gate (docs/operations.md, "Tenancy"), an onRequest hook the HTTP part installs only when
 * QUEEN_TENANCY_HEADER is set: a single-tenant broker neither loads it nor runs it (issue 39, part 2).
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { tenancyScopeOf } from '../auth/route-classes.js'
import { headerValue } from './tenant.js'

/** A tenant name as the tenancy header must carry it (docs/operations.md, "Tenancy"). */
const TENANT_PATTERN = /^[A-Za-z0-9._-]{1,64}$/

/**
 * The tenancy gate (an onRequest hook). Decided on the routed path, so `//` or `..` cannot dodge it:
 * tenant routes need a valid header, operator-only routes refuse one, everything else ignores it.
 */
export async function tenancyGate(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const configured = request.server.broker.config.tenancy.header
  if (configured === undefined) return
  const route = request.routeOptions.url
  if (route === undefined) return
  const value = headerValue(request, configured.toLowerCase())
  // Operator-only and tenant routes come from the route table (auth/route-classes.ts).
  const scope = tenancyScopeOf(route)
  if (scope === 'operator') {
    if (value !== undefined) await reply.code(403).send({ error: 'operator-only route', code: 'QUEEN_ERR_FORBIDDEN' })
    return
  }
  if (scope === 'none') return
  if (value === undefined || value === '') {
    await reply.code(400).send({ error: `${configured} header is required`, code: 'QUEEN_ERR_VALIDATION' })
  } else if (!TENANT_PATTERN.test(value)) {
    await reply.code(400).send({
      error: `${configured} header is invalid: use 1 to 64 letters, digits, '.', '_' or '-'`,
      code: 'QUEEN_ERR_VALIDATION',
    })
  } else {
    await checkTenantClaim(request, reply, configured, value)
  }
}

/**
 * QUEEN_TENANCY_CLAIM (docs/operations.md, "Tenancy"): the token's claim must equal the header, binding a tenant to its
 * tokens. A request without a verified token (a route listed in JWT_SKIP_PATHS) cannot prove its tenant.
 */
async function checkTenantClaim(request: FastifyRequest, reply: FastifyReply, header: string, tenant: string) {
  const claim = request.server.broker.config.tenancy.claim
  if (claim === undefined || request.identity?.claims[claim] === tenant) return
  request.server.broker.events.emit('authFailed', 'tenant_mismatch')
  await reply
    .code(403)
    .send({ error: `${header} does not match the token's ${claim} claim`, code: 'QUEEN_ERR_FORBIDDEN' })
}
