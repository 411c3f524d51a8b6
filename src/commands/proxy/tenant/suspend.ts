import { Args } from '@oclif/core'
import { OutputCommand } from '../../../cli/output-command.js'
import { gatewayAdmin } from '../../../cli/proxy-admin.js'
import { gatewayPgUrlFlag } from '../../../cli/proxy-flags.js'
import { setTenantStatus, type Tenant } from '../../../gateway/store/tenants.js'

export default class ProxyTenantSuspend extends OutputCommand {
  static override summary = 'Suspend a tenant: its keys are refused (403) on every gateway replica within 2 s'
  static override description =
    'Sets the tenant status to suspended. Its keys and its messages in the brokers are kept; the gateway replicas hear the change through PostgreSQL notifications.'

  static override examples = [
    '<%= config.bin %> proxy tenant suspend acme',
    '<%= config.bin %> proxy tenant suspend acme --output json',
  ]
  static override args = { tenant: Args.string({ description: 'tenant name or id', required: true }) }
  static override flags = { 'pg-url': gatewayPgUrlFlag }

  async run(): Promise<Tenant> {
    const { args, flags } = await this.parse(ProxyTenantSuspend)
    const out = this.output(flags)
    const tenant = await gatewayAdmin(flags['pg-url'], (db) => setTenantStatus(db, args.tenant, 'suspended'))
    out.detail({ name: tenant.name, id: tenant.id, status: tenant.status }, tenant)
    return tenant
  }
}
