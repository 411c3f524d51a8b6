import { OutputCommand } from '../../../cli/output-command.js'
import { gatewayAdmin, TENANT_COLUMNS } from '../../../cli/proxy-admin.js'
import { gatewayPgUrlFlag } from '../../../cli/proxy-flags.js'
import { listTenants, type TenantListing } from '../../../gateway/store/tenants.js'

export default class ProxyTenantList extends OutputCommand {
  static override summary = "List the gateway's tenants"
  static override description = 'Every tenant with its status, its number of usable API keys and its id.'
  static override aliases = ['proxy:tenant:ls']
  static override examples = [
    '<%= config.bin %> proxy tenant list',
    '<%= config.bin %> proxy tenant list --output json',
  ]
  static override flags = { 'pg-url': gatewayPgUrlFlag }

  async run(): Promise<TenantListing[]> {
    const { flags } = await this.parse(ProxyTenantList)
    const out = this.output(flags)
    const tenants = await gatewayAdmin(flags['pg-url'], (db) => listTenants(db))
    out.list(tenants, TENANT_COLUMNS)
    return tenants
  }
}
