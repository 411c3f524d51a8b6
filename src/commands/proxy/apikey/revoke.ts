import { Args } from '@oclif/core'
import { confirmAction } from '../../../cli/confirm.js'
import { EXIT } from '../../../cli/errors.js'
import { dryRunFlag, yesFlag } from '../../../cli/flags.js'
import { OutputCommand } from '../../../cli/output-command.js'
import { gatewayAdmin, keyState } from '../../../cli/proxy-admin.js'
import { gatewayPgUrlFlag } from '../../../cli/proxy-flags.js'
import { listApiKeys, revokeApiKey } from '../../../gateway/store/api-keys.js'

export default class ProxyApikeyRevoke extends OutputCommand {
  static override summary = 'Revoke an API key by its id or visible prefix'
  static override description =
    'Marks the key revoked. Every gateway replica refuses it within 2 s (PostgreSQL notifications; a replica that cannot listen re-checks cached keys every second).'

  static override examples = [
    '<%= config.bin %> proxy apikey revoke qk_ab3cdefg7h --yes',
    '<%= config.bin %> proxy apikey revoke 0f4c2d9e-... --dry-run',
  ]

  static override args = {
    key: Args.string({ description: 'the key id or its visible prefix (qk_...)', required: true }),
  }
  static override flags = { 'pg-url': gatewayPgUrlFlag, yes: yesFlag, 'dry-run': dryRunFlag }

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(ProxyApikeyRevoke)
    const out = this.output(flags)
    return gatewayAdmin(flags['pg-url'], async (db) => {
      const key = (await listApiKeys(db)).find((row) => row.id === args.key || row.prefix === args.key)
      if (!key || keyState(key) === 'revoked') {
        out.note(`no active API key ${JSON.stringify(args.key)}: nothing to revoke`)
        return this.exit(EXIT.noop)
      }
      if (flags['dry-run']) {
        out.note(`would revoke API key ${key.prefix} of tenant ${key.tenant} (${key.role})`)
        return { dryRun: true, id: key.id, prefix: key.prefix, tenant: key.tenant }
      }
      await confirmAction({
        yes: flags.yes,
        question: `Revoke API key ${key.prefix} of tenant ${key.tenant} (${key.role})?`,
        action: `revoke API key ${key.prefix}`,
        retry: `queenctl proxy apikey revoke ${key.prefix} --yes`,
      })
      const revoked = await revokeApiKey(db, key.id)
      out.confirm(`revoked API key ${revoked.prefix} of tenant ${key.tenant}`)
      const result = { revoked: true, id: revoked.id, prefix: revoked.prefix, tenant: key.tenant }
      if (!out.tabular) out.detail({}, result)
      return result
    })
  }
}
