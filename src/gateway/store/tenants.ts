/** Tenants in the gateway's database (docs/gateway.md, "Tenants and API keys"). */
import { randomUUID } from 'node:crypto'
import type pg from 'pg'
import { gatewayQuery } from './run.js'

export const TENANT_NAME_PATTERN = /^[A-Za-z0-9._-]{1,64}$/

export type TenantStatus = 'active' | 'suspended'

export interface Tenant {
  readonly id: string
  readonly name: string
  readonly status: TenantStatus
  readonly createdAt: string
}

export interface TenantListing extends Tenant {
  readonly activeKeys: number
}

interface TenantRow {
  id: string
  name: string
  status: TenantStatus
  created_at: Date
}

function tenantOf(row: TenantRow): Tenant {
  return { id: row.id, name: row.name, status: row.status, createdAt: row.created_at.toISOString() }
}

/** A refusal the caller shows as it is (a taken name, a tenant that does not exist). */
export class TenantError extends Error {}

export async function createTenant(db: pg.Pool | pg.ClientBase, name: string): Promise<Tenant> {
  if (!TENANT_NAME_PATTERN.test(name)) {
    throw new TenantError(`tenant name ${JSON.stringify(name)} must match ${TENANT_NAME_PATTERN.source}`)
  }
  try {
    const rows = await gatewayQuery<TenantRow>(db, 'tenantCreate', [randomUUID(), name])
    return tenantOf(rows[0]!)
  } catch (error) {
    if ((error as { code?: string }).code === '23505') throw new TenantError(`tenant ${name} already exists`)
    throw error
  }
}

export async function listTenants(db: pg.Pool | pg.ClientBase): Promise<TenantListing[]> {
  const rows = await gatewayQuery<TenantRow & { active_keys: number }>(db, 'tenantList')
  return rows.map((row) => ({ ...tenantOf(row), activeKeys: row.active_keys }))
}

/** The tenant named `nameOrId` (its name or its id). */
export async function findTenant(db: pg.Pool | pg.ClientBase, nameOrId: string): Promise<Tenant> {
  const rows = await gatewayQuery<TenantRow>(db, 'tenantFind', [nameOrId])
  if (rows.length === 0) throw new TenantError(`no tenant ${nameOrId}`)
  return tenantOf(rows[0]!)
}

export async function setTenantStatus(
  db: pg.Pool | pg.ClientBase,
  nameOrId: string,
  status: TenantStatus,
): Promise<Tenant> {
  const rows = await gatewayQuery<TenantRow>(db, 'tenantSetStatus', [nameOrId, status])
  if (rows.length === 0) throw new TenantError(`no tenant ${nameOrId}`)
  return tenantOf(rows[0]!)
}

/** Deletes a tenant and its keys (its messages stay in the brokers, under its id, reachable by no key). */
export async function deleteTenant(
  db: pg.Pool | pg.ClientBase,
  nameOrId: string,
): Promise<{ id: string; name: string }> {
  const rows = await gatewayQuery<{ id: string; name: string }>(db, 'tenantDelete', [nameOrId])
  if (rows.length === 0) throw new TenantError(`no tenant ${nameOrId}`)
  return rows[0]!
}
