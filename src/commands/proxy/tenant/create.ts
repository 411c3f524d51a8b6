import { Args } from '@oclif/core'
import { OutputCommand } from '../../../cli/output-command.js'
import { gatewayAdmin } from '../../../cli/proxy-admin.js'
import { gatewayPgUrlFlag } from '../../../cli/proxy-flags.js'
import { createTenant, type Tenant } from '../../../gateway/store/tenants.js'

export default class ProxyTenantCreate extends OutputCommand {
  static override summary = 'Create a tenant in the gateway'
  static override description =
    "Adds a tenant to the gateway's database. Its id (a UUID) is what the gateway sends the brokers in the tenancy header, so a tenant's data never depends on its name. Names match ^[A-Za-z0-9._-]{1,64}$."

  static override examples = [
    '<%= config.bin %> proxy tenant create acme',
    '<%= config.bin %> proxy tenant create acme --output json',
    '<%= config.bin %> proxy tenant create acme --pg-url postgres://queen@gateway-db:5432/queen_proxy',
  ]

  static override args = { name: Args.string({ description: 'tenant name', required: true }) }
  static override flags = { 'pg-url': gatewayPgUrlFlag }

  async run(): Promise<Tenant> {
    const { args, flags } = await this.parse(ProxyTenantCreate)
    const out = this.output(flags)
    const tenant = await gatewayAdmin(flags['pg-url'], (db) => createTenant(db, args.name))
    out.detail({ name: tenant.name, id: tenant.id, status: tenant.status }, tenant)
    return tenant
  }
}
