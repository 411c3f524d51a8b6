import { Args } from '@oclif/core'
import { confirmByName } from '../../../cli/confirm.js'
import { EXIT } from '../../../cli/errors.js'
import { dryRunFlag, yesFlag } from '../../../cli/flags.js'
import { OutputCommand } from '../../../cli/output-command.js'
import { gatewayAdmin } from '../../../cli/proxy-admin.js'
import { gatewayPgUrlFlag } from '../../../cli/proxy-flags.js'
import { listApiKeys } from '../../../gateway/store/api-keys.js'
import { deleteTenant, findTenant, TenantError } from '../../../gateway/store/tenants.js'

export default class ProxyTenantDelete extends OutputCommand {
  static override summary = 'Delete a tenant and its API keys'
  static override description =
    "Removes the tenant and every key of it from the gateway's database; its keys are refused on every replica within 2 s. Its messages stay in the brokers under its id, reachable by no key: clear its queues first if they must go."

  static override examples = [
    '<%= config.bin %> proxy tenant delete acme --dry-run',
    '<%= config.bin %> proxy tenant delete acme --yes',
  ]

  static override args = { tenant: Args.string({ description: 'tenant name or id', required: true }) }
  static override flags = { 'pg-url': gatewayPgUrlFlag, yes: yesFlag, 'dry-run': dryRunFlag }

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(ProxyTenantDelete)
    const out = this.output(flags)
    return gatewayAdmin(flags['pg-url'], async (db) => {
      const tenant = await findTenant(db, args.tenant).catch((error: unknown) => {
        if (!(error instanceof TenantError)) throw error
        return undefined
      })
      if (!tenant) {
        out.note(`tenant ${JSON.stringify(args.tenant)} does not exist: nothing to delete`)
        return this.exit(EXIT.noop)
      }
      const keys = await listApiKeys(db, tenant.id)
      if (flags['dry-run']) {
        out.note(`would delete tenant ${tenant.name} (${tenant.id}) and its ${keys.length} API key(s)`)
        return { dryRun: true, tenant: tenant.name, id: tenant.id, keys: keys.length }
      }
      await confirmByName({
        yes: flags.yes,
        name: tenant.name,
        question: `Delete tenant ${tenant.name} and its ${keys.length} API key(s)?`,
        action: `delete tenant ${tenant.name}`,
        retry: `queenctl proxy tenant delete ${tenant.name} --yes`,
      })
      const deleted = await deleteTenant(db, tenant.id)
      out.confirm(`deleted tenant ${deleted.name} and ${keys.length} API key(s)`)
      const result = { deleted: true, tenant: deleted.name, id: deleted.id, keys: keys.length }
      if (!out.tabular) out.detail({}, result)
      return result
    })
  }
}
