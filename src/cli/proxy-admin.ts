/**
 * What `queenctl proxy tenant|apikey` do (docs/gateway.md, "Managing tenants and keys"): the gateway's store calls on
 * its database, their refusals as user errors, the columns of their listings and the `--expires` flag.
 */
import type pg from 'pg'
import { TenantError, type TenantListing } from '../gateway/store/tenants.js'
import type { ApiKeyListing } from '../gateway/store/api-keys.js'
import { UserError } from './errors.js'
import { parseDurationMs } from './flags.js'
import type { Column } from './output.js'
import { withGatewayDatabase } from './proxy-db.js'
import { parseTimeMs } from './times.js'

/** Runs a store call on the gateway's database; a store refusal (no such tenant, a taken name) exits 1 with its text. */
export async function gatewayAdmin<T>(pgUrl: string | undefined, work: (db: pg.Client) => Promise<T>): Promise<T> {
  return withGatewayDatabase(pgUrl, async (db) => {
    try {
      return await work(db)
    } catch (error) {
      if (error instanceof TenantError) throw new UserError(error.message)
      throw error
    }
  })
}

/** `--expires`: a duration from now (`30d`, `12h`) or a future time (RFC 3339, `2027-01-31`). */
export function parseExpiry(text: string, now = Date.now()): Date {
  let at: number
  try {
    at = now + parseDurationMs(text)
  } catch {
    at = parseTimeMs(text, { flag: '--expires', now })
  }
  if (at <= now) {
    throw new UserError(`--expires: ${JSON.stringify(text)} is not in the future`, {
      hint: 'use a duration such as 30d or 12h, or a future time such as 2027-01-31',
    })
  }
  return new Date(at)
}

export const TENANT_COLUMNS: Column<TenantListing>[] = [
  { header: 'NAME', value: (row) => row.name },
  { header: 'STATUS', value: (row) => row.status },
  { header: 'ACTIVE KEYS', value: (row) => row.activeKeys },
  { header: 'ID', value: (row) => row.id },
  { header: 'CREATED', value: (row) => row.createdAt, wide: true },
]

/** A key's state as one word: what a listing reader needs first. */
export function keyState(row: ApiKeyListing, now = Date.now()): string {
  if (row.revokedAt !== null) return 'revoked'
  if (row.expiresAt !== null && Date.parse(row.expiresAt) <= now) return 'expired'
  return 'active'
}

export const API_KEY_COLUMNS: Column<ApiKeyListing>[] = [
  { header: 'PREFIX', value: (row) => row.prefix },
  { header: 'TENANT', value: (row) => row.tenant },
  { header: 'ROLE', value: (row) => row.role },
  { header: 'STATE', value: (row) => keyState(row) },
  { header: 'NAME', value: (row) => row.name },
  { header: 'EXPIRES', value: (row) => row.expiresAt ?? '-' },
  { header: 'LAST USED', value: (row) => row.lastUsedAt ?? '-' },
  { header: 'ID', value: (row) => row.id, wide: true },
  { header: 'CREATED', value: (row) => row.createdAt, wide: true },
]
