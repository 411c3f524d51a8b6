/** The tenant a request acts for (docs/operations.md, "Tenancy"); the gate that checks the header is tenancy-gate.ts. */
import type { FastifyRequest } from 'fastify'

/** The configured tenancy header, lowercased as Node stores incoming names; undefined = single tenant. */
function tenancyHeaderOf(request: FastifyRequest): string | undefined {
  return request.server.broker.config.tenancy.header?.toLowerCase()
}

export function headerValue(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name]
  return Array.isArray(value) ? value[0] : value
}

/**
 * The tenant a request acts for: the tenancy header's value when `QUEEN_TENANCY_HEADER` is set (the gate,
 * tenancy-gate.ts, has already checked it), `""` on a single-tenant broker.
 */
export function tenantOf(request: FastifyRequest): string {
  const name = tenancyHeaderOf(request)
  if (name === undefined) return ''
  return headerValue(request, name) ?? ''
}
