import { Flags } from '@oclif/core'
import { OutputCommand } from '../../../cli/output-command.js'
import { gatewayAdmin } from '../../../cli/proxy-admin.js'
import { gatewayPgUrlFlag } from '../../../cli/proxy-flags.js'
import {
  givenLimits,
  keyDisplay,
  LIMIT_FLAGS,
  setKeyQuota,
  setTenantQuota,
  tenantDisplay,
  type KeyQuotaReport,
  type TenantQuotaReport,
} from '../../../cli/proxy-quota.js'

export default class ProxyQuotaSet extends OutputCommand {
  static override summary = "Set a tenant's quotas and rate limits, or a key's rate limits"
  static override description =
    'Changes only the limits named; "unlimited" clears one (an unset limit is unlimited). Quotas (per tenant): queues, partitions, messages and payload bytes pushed per UTC day, stored payload bytes. Rate limits (per tenant and per key): requests and pushed messages per second. Every gateway replica applies the change within PROXY_LIMITS_REFRESH_MS (500 ms). A request over a limit is refused with 429 before it reaches a broker.'

  static override examples = [
    '<%= config.bin %> proxy quota set --tenant acme --queues 50 --messages-per-day 1000000 --payload-bytes-per-day 2GiB',
    '<%= config.bin %> proxy quota set --tenant acme --requests-per-second 200 --messages-per-second 5000',
    '<%= config.bin %> proxy quota set --key qk_ab3cdefg7h --requests-per-second 20',
    '<%= config.bin %> proxy quota set --tenant acme --stored-bytes unlimited',
  ]

  static override flags = {
    'pg-url': gatewayPgUrlFlag,
    tenant: Flags.string({ description: 'the tenant (name or id)', exactlyOne: ['tenant', 'key'] }),
    key: Flags.string({ description: 'the API key (id or visible prefix): rate limits only' }),
    ...LIMIT_FLAGS,
  }

  async run(): Promise<TenantQuotaReport | KeyQuotaReport> {
    const { flags } = await this.parse(ProxyQuotaSet)
    const out = this.output(flags)
    if (flags.key !== undefined) {
      const given = givenLimits(flags, 'key')
      const report = await gatewayAdmin(flags['pg-url'], (db) => setKeyQuota(db, flags.key!, given))
      out.detail(keyDisplay(report), report)
      return report
    }
    const given = givenLimits(flags, 'tenant')
    const report = await gatewayAdmin(flags['pg-url'], (db) => setTenantQuota(db, flags.tenant!, given))
    out.detail(tenantDisplay(report), report)
    return report
  }
}
