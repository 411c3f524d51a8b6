import { Flags } from '@oclif/core'
import { OutputCommand } from '../../../cli/output-command.js'
import { gatewayAdmin, parseExpiry } from '../../../cli/proxy-admin.js'
import { gatewayPgUrlFlag } from '../../../cli/proxy-flags.js'
import { KEY_ROLES } from '../../../gateway/keys/api-key.js'
import { createApiKey, type CreatedApiKey } from '../../../gateway/store/api-keys.js'

export default class ProxyApikeyCreate extends OutputCommand {
  static override summary = 'Create an API key for a tenant (shown once)'
  static override description =
    "Creates a random key for the tenant with a role: read-only (reads), producer (push), consumer (pop, ack, lease, transaction), read-write (all of those and message and group changes), or tenant-admin (also configures and deletes the tenant's queues). The key is printed once, bare on stdout (ready for QUEEN_TOKEN=$(...)) unless -o json asks for every field; only its scrypt hash is stored. Clients send it as Authorization: Bearer <key>."

  static override examples = [
    '<%= config.bin %> proxy apikey create --tenant acme --role producer --name billing-service',
    'KEY=$(<%= config.bin %> proxy apikey create --tenant acme --role consumer --expires 90d)',
    '<%= config.bin %> proxy apikey create --tenant acme --role read-only -o json',
  ]

  static override flags = {
    'pg-url': gatewayPgUrlFlag,
    tenant: Flags.string({ description: 'tenant name or id', required: true }),
    role: Flags.string({ description: 'what the key may do', options: [...KEY_ROLES], required: true }),
    name: Flags.string({ description: 'a label to recognise the key by in listings', default: '' }),
    expires: Flags.string({
      description: 'expiry: a duration from now (90d, 12h) or a time (2027-01-31); default never',
    }),
  }

  async run(): Promise<CreatedApiKey> {
    const { flags } = await this.parse(ProxyApikeyCreate)
    const expiresAt = flags.expires === undefined ? undefined : parseExpiry(flags.expires)
    const created = await gatewayAdmin(flags['pg-url'], (db) =>
      createApiKey(db, { tenant: flags.tenant, role: flags.role, name: flags.name, expiresAt }),
    )
    if (flags.output === undefined && flags.json !== true) {
      if (!flags.quiet) {
        process.stderr.write(
          `API key ${created.prefix} for tenant ${created.tenant} (${created.role}); it is shown only now, store it safely\n`,
        )
      }
      process.stdout.write(`${created.key}\n`)
      return created
    }
    const out = this.output(flags)
    out.detail({ key: created.key, prefix: created.prefix, tenant: created.tenant, role: created.role }, created)
    return created
  }
}
