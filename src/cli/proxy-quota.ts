/**
 * What `queenctl proxy quota set|get` do (docs/gateway.md, "Quotas and rate limits"): read the limit flags, merge
 * them into the tenant's or key's stored limits, and show limits with today's counters. Every gateway replica
 * applies a change within PROXY_LIMITS_REFRESH_MS.
 */
import { Flags } from '@oclif/core'
import type pg from 'pg'
import {
  formatLimitValue,
  KEY_LIMIT_NAMES,
  LimitValueError,
  LIMITS,
  parseLimitValue,
  TENANT_LIMIT_NAMES,
  type KeyLimits,
  type TenantLimitName,
  type TenantLimits,
} from '../gateway/limits/limit-settings.js'
import {
  dailyUsage,
  findKey,
  findTenant,
  keyLimits,
  tenantLimits,
  writeKeyLimits,
  writeTenantLimits,
} from '../gateway/limits/limits-store.js'
import { utcDay } from '../gateway/limits/push-counters.js'
import { UserError } from './errors.js'

/** One string flag per limit: `--queues 10`, `--payload-bytes-per-day 2GiB`, `--requests-per-second unlimited`. */
export const LIMIT_FLAGS = Object.fromEntries(
  TENANT_LIMIT_NAMES.map((name) => {
    const { flag, description, perKey } = LIMITS[name]
    const scope = perKey ? 'per tenant or per key' : 'per tenant'
    return [flag, Flags.string({ description: `${description}, ${scope}; "unlimited" clears it`, helpValue: 'N' })]
  }),
) as Record<string, ReturnType<typeof Flags.string>>

/** The limit flags given, parsed; a bad value or a tenant-only flag with `--key` names the flag. */
export function givenLimits(
  flags: Record<string, unknown>,
  target: 'tenant' | 'key',
): Partial<Record<TenantLimitName, number | null>> {
  const given: Partial<Record<TenantLimitName, number | null>> = {}
  for (const name of TENANT_LIMIT_NAMES) {
    const text = flags[LIMITS[name].flag]
    if (typeof text !== 'string') continue
    if (target === 'key' && !LIMITS[name].perKey) {
      throw new UserError(`--${LIMITS[name].flag} is a tenant quota; a key carries only rate limits`, {
        hint: 'use --tenant for it, or --requests-per-second / --messages-per-second with --key',
      })
    }
    try {
      given[name] = parseLimitValue(name, text)
    } catch (error) {
      if (error instanceof LimitValueError) throw new UserError(error.message)
      throw error
    }
  }
  if (Object.keys(given).length === 0) {
    const names = (target === 'key' ? KEY_LIMIT_NAMES : TENANT_LIMIT_NAMES).map((name) => `--${LIMITS[name].flag}`)
    throw new UserError(`name at least one limit to set: ${names.join(', ')}`)
  }
  return given
}

/** What `quota get` and `quota set` show for a tenant. */
export interface TenantQuotaReport {
  readonly tenant: string
  readonly tenantId: string
  readonly limits: TenantLimits
  /** Today's counters (UTC day). */
  readonly today: { readonly day: string; readonly messages: number; readonly payloadBytes: number }
}

/** What they show for a key. */
export interface KeyQuotaReport {
  readonly key: string
  readonly keyId: string
  readonly tenant: string
  readonly limits: KeyLimits
}

export async function tenantReport(db: pg.ClientBase, nameOrId: string): Promise<TenantQuotaReport> {
  const tenant = await findTenant(db, nameOrId)
  const day = utcDay(Date.now())
  const usage = await dailyUsage(db, tenant.id, day)
  return {
    tenant: tenant.name,
    tenantId: tenant.id,
    limits: await tenantLimits(db, tenant.id),
    today: { day, ...usage },
  }
}

export async function keyReport(db: pg.ClientBase, idOrPrefix: string): Promise<KeyQuotaReport> {
  const key = await findKey(db, idOrPrefix)
  return { key: key.prefix, keyId: key.id, tenant: key.tenant, limits: await keyLimits(db, key.id) }
}

export async function setTenantQuota(
  db: pg.ClientBase,
  nameOrId: string,
  given: Partial<Record<TenantLimitName, number | null>>,
): Promise<TenantQuotaReport> {
  const tenant = await findTenant(db, nameOrId)
  await writeTenantLimits(db, tenant.id, { ...(await tenantLimits(db, tenant.id)), ...given })
  return tenantReport(db, tenant.id)
}

export async function setKeyQuota(
  db: pg.ClientBase,
  idOrPrefix: string,
  given: Partial<Record<TenantLimitName, number | null>>,
): Promise<KeyQuotaReport> {
  const key = await findKey(db, idOrPrefix)
  const current = await keyLimits(db, key.id)
  await writeKeyLimits(db, key.id, {
    requestsPerSecond: given.requestsPerSecond !== undefined ? given.requestsPerSecond : current.requestsPerSecond,
    messagesPerSecond: given.messagesPerSecond !== undefined ? given.messagesPerSecond : current.messagesPerSecond,
  })
  return keyReport(db, key.id)
}

/** The lines of the human display: one per limit, then today's counters. */
export function tenantDisplay(report: TenantQuotaReport): Record<string, unknown> {
  const display: Record<string, unknown> = { tenant: report.tenant }
  for (const name of TENANT_LIMIT_NAMES) display[LIMITS[name].flag] = formatLimitValue(report.limits[name])
  display[`messages today (${report.today.day} UTC)`] = report.today.messages
  display[`payload bytes today (${report.today.day} UTC)`] = report.today.payloadBytes
  return display
}

export function keyDisplay(report: KeyQuotaReport): Record<string, unknown> {
  const display: Record<string, unknown> = { key: report.key, tenant: report.tenant }
  for (const name of KEY_LIMIT_NAMES) display[LIMITS[name].flag] = formatLimitValue(report.limits[name])
  return display
}
