import { Args, Flags } from '@oclif/core'
import { OutputCommand } from '../../../cli/output-command.js'
import { readPassword } from '../../../cli/password-input.js'
import { gatewayAdmin } from '../../../cli/proxy-admin.js'
import { gatewayPgUrlFlag } from '../../../cli/proxy-flags.js'
import { UserError } from '../../../cli/errors.js'
import { KEY_ROLES } from '../../../gateway/keys/api-key.js'
import { createUser, passwordProblem } from '../../../gateway/people/users.js'

export default class ProxyUserCreate extends OutputCommand {
  static override summary = 'Create a user who signs in to the gateway'
  static override description =
    "Creates a person with a password, one tenant and a role (the API keys' five roles). The password is read from stdin (the first line) or asked for without echo on a terminal, never from a flag; only its scrypt hash is stored. With --oidc-subject the user signs in only through the OpenID provider and no password is read. The user signs in with POST /api/login, the gateway's sign-in page or queenctl login --method password, and is then treated like an API key of that tenant and role."

  static override examples = [
    'printf %s "$PASSWORD" | <%= config.bin %> proxy user create alice --tenant acme --role read-write',
    '<%= config.bin %> proxy user create carol --tenant acme --role read-only --oidc-subject 248289761001',
    '<%= config.bin %> proxy user create bob --tenant acme --role read-only',
  ]

  static override args = {
    name: Args.string({ description: 'user name (letters, digits, . _ @ + -)', required: true }),
  }
  static override flags = {
    'pg-url': gatewayPgUrlFlag,
    tenant: Flags.string({ description: 'tenant name or id', required: true }),
    role: Flags.string({ description: 'what the user may do', options: [...KEY_ROLES], required: true }),
    'oidc-subject': Flags.string({
      description: "the user's sub at the OpenID provider (PROXY_OIDC_USER_CLAIM=sub); such a user has no password",
    }),
  }

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(ProxyUserCreate)
    const out = this.output(flags)
    const oidcSubject = flags['oidc-subject']
    if (oidcSubject !== undefined && oidcSubject.trim() === '') {
      throw new UserError('--oidc-subject: an empty subject matches no sign-in')
    }
    // A user who signs in with OpenID Connect has no password to guess.
    const password =
      oidcSubject === undefined
        ? await readPassword(process.stdin, (text) => process.stderr.write(text), 'proxy user create', {
            confirm: true,
          })
        : undefined
    const problem = password === undefined ? undefined : passwordProblem(password)
    if (problem) throw new UserError(`proxy user create: ${problem}`)
    const created = await gatewayAdmin(flags['pg-url'], (db) =>
      createUser(db, { name: args.name, tenant: flags.tenant, role: flags.role, password, oidcSubject }),
    )
    out.confirm(`created user ${created.name} in tenant ${created.tenant} (${created.role})`)
    if (!out.tabular) out.detail({}, created)
    return created
  }
}
