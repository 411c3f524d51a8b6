/** Lease extension by a client (lease-extend statement, queen.extend_lease of schema 003). */
import type pg from 'pg'
import { runQuery } from '../db/run-query.js'

/** What an extension did; `expiresAt` is set when the lease was extended. */
export interface LeaseExtension {
  outcome: 'extended' | 'expired' | 'not_found'
  expiresAt: Date | null
}

/** Extends every live lease row carrying the lease id by `seconds`. */
export async function extendLease(
  pool: pg.Pool,
  params: { tenant: string; leaseId: string; seconds: number },
): Promise<LeaseExtension> {
  // lease-extend.sql: $1 lease id, $2 seconds, $3 tenant (another tenant's lease answers not_found).
  const [row] = await runQuery<{ outcome: LeaseExtension['outcome']; expires_at: Date | null }>(pool, 'leaseExtend', [
    params.leaseId,
    params.seconds,
    params.tenant,
  ])
  return { outcome: row?.outcome ?? 'not_found', expiresAt: row?.expires_at ?? null }
}
