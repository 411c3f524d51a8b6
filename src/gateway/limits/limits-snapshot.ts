/**
 * Every tenant's and key's limits, held in memory by each replica so a request costs no database read for them
 * (docs/gateway.md, "Quotas and rate limits"). A trigger bumps `queen_proxy.limits_version` on every change; each
 * replica polls that one row every PROXY_LIMITS_REFRESH_MS and reloads when it moved, so a `proxy quota set` reaches
 * every replica within that interval plus one reload (the 2 s promise of issue 36 with the 500 ms default).
 */
import type pg from 'pg'
import { NO_KEY_LIMITS, NO_TENANT_LIMITS, type KeyLimits, type TenantLimits } from './limit-settings.js'
import { limitsVersion, loadAllLimits } from './limits-store.js'

export class LimitsSnapshot {
  private tenants = new Map<string, TenantLimits>()
  private keys = new Map<string, KeyLimits>()
  private version: string | undefined
  private readonly db: pg.Pool
  private readonly onChange: () => void

  /** `onChange` runs after a reload that changed the limits (the rate limiter drops its leased tokens). */
  constructor(db: pg.Pool, onChange: () => void = () => undefined) {
    this.db = db
    this.onChange = onChange
  }

  tenant(tenantId: string): TenantLimits {
    return this.tenants.get(tenantId) ?? NO_TENANT_LIMITS
  }

  key(keyId: string): KeyLimits {
    return this.keys.get(keyId) ?? NO_KEY_LIMITS
  }

  /** Reloads when the version moved (one small read otherwise); the loop of the gateway calls it. */
  async refresh(): Promise<void> {
    const version = await limitsVersion(this.db)
    if (version === this.version) return
    const loaded = await loadAllLimits(this.db)
    const first = this.version === undefined
    this.tenants = loaded.tenants
    this.keys = loaded.keys
    this.version = version
    if (!first) this.onChange()
  }
}
