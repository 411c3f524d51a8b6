import type { FastifyRequest } from 'fastify'

/**
 * The tenant a request acts for. Single-tenant brokers use the tenant `""`; the tenancy header
 * (operations.md section 14) will set it per request.
 */
export function tenantOf(_request: FastifyRequest): string {
  return ''
}
