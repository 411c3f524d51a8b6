import { Args } from '@oclif/core'
import { confirmByName } from '../../../cli/confirm.js'
import { EXIT } from '../../../cli/errors.js'
import { dryRunFlag, yesFlag } from '../../../cli/flags.js'
import { OutputCommand } from '../../../cli/output-command.js'
import { gatewayAdmin } from '../../../cli/proxy-admin.js'
import { gatewayPgUrlFlag } from '../../../cli/proxy-flags.js'
import { deleteUser, listUsers } from '../../../gateway/people/users.js'

export default class ProxyUserDelete extends OutputCommand {
  static override summary = 'Delete a user and end their sessions'
  static override description =
    "Removes the user from the gateway's database; every session of the user ends on every replica within 2 s."

  static override examples = [
    '<%= config.bin %> proxy user delete alice --dry-run',
    '<%= config.bin %> proxy user delete alice --yes',
  ]

  static override args = { name: Args.string({ description: 'user name or id', required: true }) }
  static override flags = { 'pg-url': gatewayPgUrlFlag, yes: yesFlag, 'dry-run': dryRunFlag }

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(ProxyUserDelete)
    const out = this.output(flags)
    return gatewayAdmin(flags['pg-url'], async (db) => {
      const user = (await listUsers(db)).find((row) => row.name === args.name || row.id === args.name)
      if (!user) {
        out.note(`user ${JSON.stringify(args.name)} does not exist: nothing to delete`)
        return this.exit(EXIT.noop)
      }
      if (flags['dry-run']) {
        out.note(`would delete user ${user.name} of tenant ${user.tenant} and end ${user.activeSessions} session(s)`)
        return { dryRun: true, user: user.name, id: user.id, sessions: user.activeSessions }
      }
      await confirmByName({
        yes: flags.yes,
        name: user.name,
        question: `Delete user ${user.name} and end ${user.activeSessions} session(s)?`,
        action: `delete user ${user.name}`,
        retry: `queenctl proxy user delete ${user.name} --yes`,
      })
      const deleted = await deleteUser(db, user.id)
      out.confirm(`deleted user ${deleted.name} and ended ${user.activeSessions} session(s)`)
      const result = { deleted: true, user: deleted.name, id: deleted.id, sessions: user.activeSessions }
      if (!out.tabular) out.detail({}, result)
      return result
    })
  }
}
