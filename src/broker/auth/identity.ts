/**
 * Who a request acts for, once the auth hook has verified its token (docs/operations.md, "Authentication"): set on
 * every request when JWT_ENABLED=true and the route is not public, null otherwise. The tenancy hook reads
 * `claims` to bind a tenant to its token (QUEEN_TENANCY_CLAIM), and pushes record `sub` as producerSub.
 */
import type { FastifyRequest } from 'fastify'

/** The roles of docs/operations.md, "Claims and roles", highest first. */
export type Role = 'admin' | 'read-write' | 'read-only'

/** A verified token. */
export interface RequestIdentity {
  /** The token's `sub`, or null when it has none. */
  sub: string | null
  /** The highest recognised role, or null when the token names none (403 on every non-public route). */
  role: Role | null
  /** Every claim of the verified payload. */
  claims: Readonly<Record<string, unknown>>
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The verified token of this request; null without auth or on a public route. */
    identity: RequestIdentity | null
  }
}

/**
 * What stored messages record as `producerSub` (docs/operations.md, "Producer identity"): the token's `sub`, null
 * without auth.
 */
export function producerSubOf(request: FastifyRequest): string | null {
  return request.identity?.sub ?? null
}
