import { Flags } from '@oclif/core'
import { OutputCommand } from '../../../cli/output-command.js'
import { gatewayAdmin } from '../../../cli/proxy-admin.js'
import { gatewayPgUrlFlag } from '../../../cli/proxy-flags.js'
import {
  keyDisplay,
  keyReport,
  tenantDisplay,
  tenantReport,
  type KeyQuotaReport,
  type TenantQuotaReport,
} from '../../../cli/proxy-quota.js'

export default class ProxyQuotaGet extends OutputCommand {
  static override summary = "Show a tenant's quotas, rate limits and today's counters, or a key's rate limits"
  static override description =
    'Every limit, "unlimited" when unset, and for a tenant the messages and payload bytes pushed through the gateways on the current UTC day (the per-day quotas\' counters).'

  static override examples = [
    '<%= config.bin %> proxy quota get --tenant acme',
    '<%= config.bin %> proxy quota get --key qk_ab3cdefg7h -o json',
  ]

  static override flags = {
    'pg-url': gatewayPgUrlFlag,
    tenant: Flags.string({ description: 'the tenant (name or id)', exactlyOne: ['tenant', 'key'] }),
    key: Flags.string({ description: 'the API key (id or visible prefix)' }),
  }

  async run(): Promise<TenantQuotaReport | KeyQuotaReport> {
    const { flags } = await this.parse(ProxyQuotaGet)
    const out = this.output(flags)
    if (flags.key !== undefined) {
      const report = await gatewayAdmin(flags['pg-url'], (db) => keyReport(db, flags.key!))
      out.detail(keyDisplay(report), report)
      return report
    }
    const report = await gatewayAdmin(flags['pg-url'], (db) => tenantReport(db, flags.tenant!))
    out.detail(tenantDisplay(report), report)
    return report
  }
}
