/** Sessions in the gateway's database (docs/gateway.md, "People: users, sessions and sign-in"). */
import type pg from 'pg'
import type { KeyRole } from '../keys/api-key.js'
import { gatewayExecute, gatewayQuery } from '../store/run.js'
import { generateSessionToken, sessionTokenHash } from './session-token.js'

/** A session as the verifier reads it, with its user and tenant. */
export interface StoredSession {
  readonly expiresAt: Date
  readonly userId: string
  readonly userName: string
  readonly role: KeyRole
  readonly tenantId: string
  readonly tenantName: string
  readonly tenantStatus: 'active' | 'suspended'
}

/** Starts a session for the user; returns the token (shown to the client only) and its expiry. */
export async function createSession(
  db: pg.Pool | pg.ClientBase,
  userId: string,
  ttlSeconds: number,
): Promise<{ token: string; expiresAt: Date }> {
  const token = generateSessionToken()
  const rows = await gatewayQuery<{ expires_at: Date }>(db, 'sessionCreate', [
    sessionTokenHash(token),
    userId,
    ttlSeconds,
  ])
  return { token, expiresAt: rows[0]!.expires_at }
}

export async function sessionByHash(db: pg.Pool | pg.ClientBase, hash: Buffer): Promise<StoredSession | undefined> {
  const rows = await gatewayQuery<{
    expires_at: Date
    user_id: string
    user_name: string
    role: KeyRole
    tenant_id: string
    tenant_name: string
    tenant_status: 'active' | 'suspended'
  }>(db, 'sessionByHash', [hash])
  const row = rows[0]
  if (!row) return undefined
  return {
    expiresAt: row.expires_at,
    userId: row.user_id,
    userName: row.user_name,
    role: row.role,
    tenantId: row.tenant_id,
    tenantName: row.tenant_name,
    tenantStatus: row.tenant_status,
  }
}

/** Ends a session; true when there was one. */
export async function deleteSession(db: pg.Pool | pg.ClientBase, token: string): Promise<boolean> {
  return (await gatewayExecute(db, 'sessionDelete', [sessionTokenHash(token)])) > 0
}

/** Removes expired sessions (they are refused anyway; this keeps the table small). */
export function pruneSessions(db: pg.Pool | pg.ClientBase): Promise<number> {
  return gatewayExecute(db, 'sessionPrune')
}
