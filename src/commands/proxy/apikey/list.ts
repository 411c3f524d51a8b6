import { Flags } from '@oclif/core'
import { OutputCommand } from '../../../cli/output-command.js'
import { API_KEY_COLUMNS, gatewayAdmin } from '../../../cli/proxy-admin.js'
import { gatewayPgUrlFlag } from '../../../cli/proxy-flags.js'
import { listApiKeys, type ApiKeyListing } from '../../../gateway/store/api-keys.js'

export default class ProxyApikeyList extends OutputCommand {
  static override summary = 'List API keys (never the keys themselves)'
  static override description =
    'Every key with its visible prefix, tenant, role, state (active, expired, revoked), expiry and last use (written by the gateways every PROXY_LAST_USED_FLUSH_MS).'

  static override aliases = ['proxy:apikey:ls']
  static override examples = [
    '<%= config.bin %> proxy apikey list',
    '<%= config.bin %> proxy apikey list --tenant acme -o wide',
  ]
  static override flags = {
    'pg-url': gatewayPgUrlFlag,
    tenant: Flags.string({ description: 'only the keys of this tenant (name or id)' }),
  }

  async run(): Promise<ApiKeyListing[]> {
    const { flags } = await this.parse(ProxyApikeyList)
    const out = this.output(flags)
    const keys = await gatewayAdmin(flags['pg-url'], (db) => listApiKeys(db, flags.tenant))
    out.list(keys, API_KEY_COLUMNS)
    return keys
  }
}
