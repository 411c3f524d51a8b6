import { Args } from '@oclif/core'
import { OutputCommand } from '../../../cli/output-command.js'
import { gatewayAdmin } from '../../../cli/proxy-admin.js'
import { gatewayPgUrlFlag } from '../../../cli/proxy-flags.js'
import { setTenantStatus, type Tenant } from '../../../gateway/store/tenants.js'

export default class ProxyTenantResume extends OutputCommand {
  static override summary = 'Make a suspended tenant active again'
  static override description =
    'Sets the tenant status to active. Its keys and its messages in the brokers are kept; the gateway replicas hear the change through PostgreSQL notifications.'

  static override examples = [
    '<%= config.bin %> proxy tenant resume acme',
    '<%= config.bin %> proxy tenant resume acme --output json',
  ]
  static override args = { tenant: Args.string({ description: 'tenant name or id', required: true }) }
  static override flags = { 'pg-url': gatewayPgUrlFlag }

  async run(): Promise<Tenant> {
    const { args, flags } = await this.parse(ProxyTenantResume)
    const out = this.output(flags)
    const tenant = await gatewayAdmin(flags['pg-url'], (db) => setTenantStatus(db, args.tenant, 'active'))
    out.detail({ name: tenant.name, id: tenant.id, status: tenant.status }, tenant)
    return tenant
  }
}
