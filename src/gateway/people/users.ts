/**
 * Users in the gateway's database (docs/gateway.md, "People: users, sessions and sign-in"): a name, a password kept
 * as an scrypt hash (the API keys' parameters), one tenant and one of the keys' five roles.
 */
import { randomBytes, randomUUID } from 'node:crypto'
import type pg from 'pg'
import { KEY_ROLES, scryptHash, type KeyRole } from '../keys/api-key.js'
import { isKeyRole } from '../store/api-keys.js'
import { gatewayQuery } from '../store/run.js'
import { findTenant, TenantError } from '../store/tenants.js'

export const USER_NAME_PATTERN = /^[A-Za-z0-9._@+-]{1,128}$/
/** Shorter passwords are refused at creation: guessable in an offline attack on a leaked hash. */
export const MIN_PASSWORD_CHARS = 8
const MAX_PASSWORD_CHARS = 1024
const SALT_BYTES = 16

/** A user as listings show it (never the hash). */
export interface UserListing {
  readonly id: string
  readonly name: string
  readonly tenant: string
  readonly role: KeyRole
  readonly oidcSubject: string | null
  readonly hasPassword: boolean
  readonly activeSessions: number
  readonly createdAt: string
}

/** A user as login reads it. */
export interface StoredUser {
  readonly id: string
  readonly name: string
  readonly salt: Buffer | null
  readonly hash: Buffer | null
  readonly role: KeyRole
  readonly tenantId: string
  readonly tenantName: string
  readonly tenantStatus: 'active' | 'suspended'
}

/** Why a password is refused at creation, or undefined when it is acceptable. */
export function passwordProblem(password: string): string | undefined {
  if (password.length < MIN_PASSWORD_CHARS) return `the password must have at least ${MIN_PASSWORD_CHARS} characters`
  if (password.length > MAX_PASSWORD_CHARS) return `the password must have at most ${MAX_PASSWORD_CHARS} characters`
  return undefined
}

export async function createUser(
  db: pg.Pool | pg.ClientBase,
  options: { name: string; tenant: string; role: string; password?: string; oidcSubject?: string },
): Promise<{ id: string; name: string; tenant: string; tenantId: string; role: KeyRole; createdAt: string }> {
  if (!USER_NAME_PATTERN.test(options.name)) {
    throw new TenantError(`user name ${JSON.stringify(options.name)} must match ${USER_NAME_PATTERN.source}`)
  }
  if (!isKeyRole(options.role)) {
    throw new TenantError(`role ${JSON.stringify(options.role)} is not one of ${KEY_ROLES.join(', ')}`)
  }
  if (options.password === undefined && options.oidcSubject === undefined) {
    throw new TenantError('a user needs a password or an OpenID Connect subject')
  }
  if (options.password !== undefined) {
    const problem = passwordProblem(options.password)
    if (problem) throw new TenantError(problem)
  }
  const tenant = await findTenant(db, options.tenant)
  const salt = options.password === undefined ? null : randomBytes(SALT_BYTES)
  const hash = options.password === undefined || salt === null ? null : await scryptHash(options.password, salt)
  try {
    const rows = await gatewayQuery<{ id: string; name: string; role: KeyRole; created_at: Date }>(db, 'userCreate', [
      randomUUID(),
      tenant.id,
      options.name,
      salt,
      hash,
      options.role,
      options.oidcSubject ?? null,
    ])
    const row = rows[0]!
    return {
      id: row.id,
      name: row.name,
      tenant: tenant.name,
      tenantId: tenant.id,
      role: row.role,
      createdAt: row.created_at.toISOString(),
    }
  } catch (error) {
    if ((error as { code?: string }).code === '23505') {
      throw new TenantError(`user ${options.name} (or that OpenID Connect subject) already exists`)
    }
    throw error
  }
}

export async function listUsers(db: pg.Pool | pg.ClientBase, tenant?: string): Promise<UserListing[]> {
  const rows = await gatewayQuery<{
    id: string
    name: string
    tenant: string
    role: KeyRole
    oidc_subject: string | null
    has_password: boolean
    active_sessions: number
    created_at: Date
  }>(db, 'userList', [tenant ?? null])
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    tenant: row.tenant,
    role: row.role,
    oidcSubject: row.oidc_subject,
    hasPassword: row.has_password,
    activeSessions: row.active_sessions,
    createdAt: row.created_at.toISOString(),
  }))
}

/** Deletes a user (name or id) and, with it, every session of the user. */
export async function deleteUser(db: pg.Pool | pg.ClientBase, nameOrId: string): Promise<{ id: string; name: string }> {
  const rows = await gatewayQuery<{ id: string; name: string }>(db, 'userDelete', [nameOrId])
  if (rows.length === 0) throw new TenantError(`no user ${nameOrId}`)
  return rows[0]!
}

export function userByName(db: pg.Pool | pg.ClientBase, name: string): Promise<StoredUser | undefined> {
  return oneUser(db, 'userByName', name)
}

/** The user created with `--oidc-subject <subject>`, if any. */
export function userByOidcSubject(db: pg.Pool | pg.ClientBase, subject: string): Promise<StoredUser | undefined> {
  return oneUser(db, 'userByOidcSubject', subject)
}

async function oneUser(
  db: pg.Pool | pg.ClientBase,
  statement: 'userByName' | 'userByOidcSubject',
  value: string,
): Promise<StoredUser | undefined> {
  const rows = await gatewayQuery<{
    id: string
    name: string
    salt: Buffer | null
    hash: Buffer | null
    role: KeyRole
    tenant_id: string
    tenant_name: string
    tenant_status: 'active' | 'suspended'
  }>(db, statement, [value])
  const row = rows[0]
  if (!row) return undefined
  return {
    id: row.id,
    name: row.name,
    salt: row.salt,
    hash: row.hash,
    role: row.role,
    tenantId: row.tenant_id,
    tenantName: row.tenant_name,
    tenantStatus: row.tenant_status,
  }
}
