import { Flags } from '@oclif/core'
import { OutputCommand } from '../../../cli/output-command.js'
import { gatewayAdmin } from '../../../cli/proxy-admin.js'
import { gatewayPgUrlFlag } from '../../../cli/proxy-flags.js'
import { USER_COLUMNS } from '../../../cli/proxy-users.js'
import { listUsers, type UserListing } from '../../../gateway/people/users.js'

export default class ProxyUserList extends OutputCommand {
  static override summary = 'List the users of the gateway (never their passwords)'
  static override description =
    'Every user with tenant, role, how they sign in (password, oidc) and how many sessions they hold now.'

  static override aliases = ['proxy:user:ls']
  static override examples = [
    '<%= config.bin %> proxy user list',
    '<%= config.bin %> proxy user list --tenant acme -o json',
  ]
  static override flags = {
    'pg-url': gatewayPgUrlFlag,
    tenant: Flags.string({ description: 'only the users of this tenant (name or id)' }),
  }

  async run(): Promise<UserListing[]> {
    const { flags } = await this.parse(ProxyUserList)
    const out = this.output(flags)
    const users = await gatewayAdmin(flags['pg-url'], (db) => listUsers(db, flags.tenant))
    out.list(users, USER_COLUMNS)
    return users
  }
}
