import { Flags } from '@oclif/core'
import { UserError } from '../../cli/errors.js'
import { parseDurationMs } from '../../cli/flags.js'
import { OutputCommand } from '../../cli/output-command.js'
import { mintToken, type MintedToken } from '../../cli/token.js'

/** `--ttl` in ms; `0` means no expiry. */
function ttlOf(text: string): number {
  if (text.trim() === '0') return 0
  try {
    return parseDurationMs(text)
  } catch {
    throw new UserError(`--ttl: ${JSON.stringify(text)} is not a duration`, {
      hint: 'use e.g. 1h, 15m, 7d, or 0 for no expiry',
    })
  }
}

export default class TokenCreate extends OutputCommand {
  static override summary = 'Mint an HS256 token for a broker with JWT_ENABLED (development and tests)'
  static override description =
    'Signs a JWT with jose (HS256) using the secret in the environment variable named by --secret-env, never a flag value, so the secret stays out of the shell history. Claims: sub, iat, exp (now + --ttl; --ttl 0 leaves exp out), the role in --role-claim (default JWT_ROLES_CLAIM, else role), iss, aud, the tenant in --tenant-claim (default QUEEN_TENANCY_CLAIM) and any --claim key=value (the value is read as JSON when it parses, else as text). Prints the bare token, ready for QUEEN_TOKEN=$(...), unless --output json or yaml asks for {token, claims}. Production tokens come from your identity provider, not from this command.'

  static override examples = [
    'JWT_SECRET=... <%= config.bin %> token create --secret-env JWT_SECRET --sub alice --role read-write --ttl 1h',
    'export QUEEN_TOKEN=$(<%= config.bin %> token create --sub ops --role admin --ttl 15m)',
    '<%= config.bin %> token create --sub ci --role read-only --iss https://auth.example.com --aud queen --claim team=payments --output json',
    '<%= config.bin %> token create --sub acme-bot --role read-write --tenant acme --tenant-claim tenant',
  ]

  static override flags = {
    'secret-env': Flags.string({
      description: 'environment variable holding the HS256 secret (the broker JWT_SECRET)',
      default: 'JWT_SECRET',
    }),
    sub: Flags.string({ description: 'subject: the producer identity stored with pushed messages', required: true }),
    role: Flags.string({
      description: 'role granted: read-only, read-write or admin (or the names of JWT_ROLE_*)',
    }),
    'role-claim': Flags.string({
      description: 'claim carrying the role (the broker JWT_ROLES_CLAIM)',
      env: 'JWT_ROLES_CLAIM',
      default: 'role',
    }),
    ttl: Flags.string({ description: 'lifetime, e.g. 1h, 15m, 7d; 0 leaves exp out', default: '1h' }),
    iss: Flags.string({ description: 'issuer claim (the broker JWT_ISSUER)' }),
    aud: Flags.string({ description: 'audience claim (the broker JWT_AUDIENCE)' }),
    tenant: Flags.string({ description: 'tenant bound to the token, in the --tenant-claim claim' }),
    'tenant-claim': Flags.string({
      description: 'claim carrying the tenant (the broker QUEEN_TENANCY_CLAIM)',
      env: 'QUEEN_TENANCY_CLAIM',
    }),
    claim: Flags.string({ description: 'extra claim key=value (repeatable)', multiple: true, default: [] }),
  }

  async run(): Promise<MintedToken> {
    const { flags } = await this.parse(TokenCreate)
    const ttlMs = ttlOf(flags.ttl)
    const minted = await mintToken(
      {
        secretEnv: flags['secret-env'],
        sub: flags.sub,
        role: flags.role,
        roleClaim: flags['role-claim'],
        ttlMs,
        iss: flags.iss,
        aud: flags.aud,
        tenant: flags.tenant,
        tenantClaim: flags['tenant-claim'],
        claims: flags.claim,
      },
      process.env,
    )
    // The bare token unless a format was asked for: `$(queenctl token create ...)` is piped, not JSON.
    if (flags.output === undefined && flags.json !== true) {
      if (minted.warning) process.stderr.write(`warning: ${minted.warning}\n`)
      process.stdout.write(`${minted.token}\n`)
      return minted
    }
    const out = this.output(flags)
    if (minted.warning) out.warn(minted.warning)
    if (out.tabular) out.write(`${minted.token}\n`)
    else out.detail({}, minted)
    return minted
  }
}
