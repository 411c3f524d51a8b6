/** API keys in the gateway's database (docs/gateway.md, "Tenants and API keys"). */
import { randomUUID } from 'node:crypto'
import type pg from 'pg'
import { generateApiKey, KEY_ROLES, type KeyRole } from '../keys/api-key.js'
import { gatewayExecute, gatewayQuery } from './run.js'
import { findTenant, TenantError } from './tenants.js'

/** A key as `apikey create` shows it: the only time the key itself is seen. */
export interface CreatedApiKey {
  readonly id: string
  readonly key: string
  readonly prefix: string
  readonly tenant: string
  readonly tenantId: string
  readonly role: KeyRole
  readonly name: string
  readonly createdAt: string
  readonly expiresAt: string | null
}

/** A key as listings show it (never the key or its hash). */
export interface ApiKeyListing {
  readonly id: string
  readonly prefix: string
  readonly tenant: string
  readonly role: KeyRole
  readonly name: string
  readonly createdAt: string
  readonly expiresAt: string | null
  readonly revokedAt: string | null
  readonly lastUsedAt: string | null
}

/** A stored key with its tenant, as verification reads it. */
export interface StoredKey {
  readonly id: string
  readonly salt: Buffer
  readonly hash: Buffer
  readonly role: KeyRole
  readonly expiresAt: Date | null
  readonly revokedAt: Date | null
  readonly tenantId: string
  readonly tenantName: string
  readonly tenantStatus: 'active' | 'suspended'
}

interface StoredKeyRow {
  id: string
  salt: Buffer
  hash: Buffer
  role: KeyRole
  expires_at: Date | null
  revoked_at: Date | null
  tenant_id: string
  tenant_name: string
  tenant_status: 'active' | 'suspended'
}

const iso = (value: Date | null) => (value === null ? null : value.toISOString())

function storedKeyOf(row: StoredKeyRow): StoredKey {
  return {
    id: row.id,
    salt: row.salt,
    hash: row.hash,
    role: row.role,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
    tenantId: row.tenant_id,
    tenantName: row.tenant_name,
    tenantStatus: row.tenant_status,
  }
}

export function isKeyRole(text: string): text is KeyRole {
  return (KEY_ROLES as readonly string[]).includes(text)
}

export async function createApiKey(
  db: pg.Pool | pg.ClientBase,
  options: { tenant: string; role: string; name?: string; expiresAt?: Date },
): Promise<CreatedApiKey> {
  if (!isKeyRole(options.role)) {
    throw new TenantError(`role ${JSON.stringify(options.role)} is not one of ${KEY_ROLES.join(', ')}`)
  }
  const tenant = await findTenant(db, options.tenant)
  const generated = await generateApiKey()
  const rows = await gatewayQuery<{
    id: string
    prefix: string
    role: KeyRole
    name: string
    created_at: Date
    expires_at: Date | null
  }>(db, 'keyCreate', [
    randomUUID(),
    tenant.id,
    generated.prefix,
    generated.salt,
    generated.hash,
    options.role,
    options.name ?? '',
    options.expiresAt ?? null,
  ])
  const row = rows[0]!
  return {
    id: row.id,
    key: generated.key,
    prefix: row.prefix,
    tenant: tenant.name,
    tenantId: tenant.id,
    role: row.role,
    name: row.name,
    createdAt: row.created_at.toISOString(),
    expiresAt: iso(row.expires_at),
  }
}

export async function listApiKeys(db: pg.Pool | pg.ClientBase, tenant?: string): Promise<ApiKeyListing[]> {
  const rows = await gatewayQuery<{
    id: string
    prefix: string
    tenant: string
    role: KeyRole
    name: string
    created_at: Date
    expires_at: Date | null
    revoked_at: Date | null
    last_used_at: Date | null
  }>(db, 'keyList', [tenant ?? null])
  return rows.map((row) => ({
    id: row.id,
    prefix: row.prefix,
    tenant: row.tenant,
    role: row.role,
    name: row.name,
    createdAt: row.created_at.toISOString(),
    expiresAt: iso(row.expires_at),
    revokedAt: iso(row.revoked_at),
    lastUsedAt: iso(row.last_used_at),
  }))
}

/** Revokes the key with this id or visible prefix; a key already revoked is reported as not found. */
export async function revokeApiKey(
  db: pg.Pool | pg.ClientBase,
  idOrPrefix: string,
): Promise<{ id: string; prefix: string }> {
  const rows = await gatewayQuery<{ id: string; prefix: string }>(db, 'keyRevoke', [idOrPrefix])
  if (rows.length === 0) throw new TenantError(`no active API key ${idOrPrefix}`)
  return rows[0]!
}

export async function keyByPrefix(db: pg.Pool | pg.ClientBase, prefix: string): Promise<StoredKey | undefined> {
  const rows = await gatewayQuery<StoredKeyRow>(db, 'keyByPrefix', [prefix])
  return rows[0] ? storedKeyOf(rows[0]) : undefined
}

export async function keyById(db: pg.Pool | pg.ClientBase, id: string): Promise<StoredKey | undefined> {
  const rows = await gatewayQuery<StoredKeyRow>(db, 'keyById', [id])
  return rows[0] ? storedKeyOf(rows[0]) : undefined
}

/** Writes last-used times in one statement. */
export async function touchApiKeys(db: pg.Pool | pg.ClientBase, used: ReadonlyMap<string, Date>): Promise<number> {
  if (used.size === 0) return 0
  return gatewayExecute(db, 'keyTouch', [[...used.keys()], [...used.values()]])
}
