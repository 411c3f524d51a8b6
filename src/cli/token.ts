/**
 * `token create` (issue 19, docs/operations.md, "Claims and roles" and "Tenancy"): an HS256 token for development and
 * tests, signed with jose from a secret read out of an environment variable, so the secret never sits in a flag value
 * (or the shell history). The claims follow the broker's defaults: the role in JWT_ROLES_CLAIM (`role`), the tenant in
 * QUEEN_TENANCY_CLAIM when one is named.
 */
import { SignJWT } from 'jose'
import { EXIT, UserError } from './errors.js'

/** What to put in the token. */
export interface TokenRequest {
  /** Name of the variable holding the secret (`--secret-env`). */
  secretEnv: string
  sub: string
  role?: string
  /** Claim carrying the role (JWT_ROLES_CLAIM of the broker). */
  roleClaim: string
  /** Lifetime in ms; 0 leaves `exp` out. */
  ttlMs: number
  iss?: string
  aud?: string
  tenant?: string
  /** Claim carrying the tenant (QUEEN_TENANCY_CLAIM of the broker). */
  tenantClaim?: string
  /** `--claim k=v` entries. */
  claims: string[]
}

/** A minted token with the claims it carries. */
export interface MintedToken {
  token: string
  claims: Record<string, unknown>
  /** Set when the secret is shorter than the 32 bytes the broker expects (it logs a warning). */
  warning?: string
}

/** Claims set by their own flags; `--claim` may not override them. */
const FLAG_CLAIMS: Record<string, string> = { sub: '--sub', iss: '--iss', aud: '--aud', exp: '--ttl', iat: '--ttl' }

/** `k=v`: the value as JSON when it parses (numbers, booleans, arrays), else as text. */
function parseClaim(entry: string): [string, unknown] {
  const equals = entry.indexOf('=')
  if (equals <= 0) {
    throw new UserError(`--claim ${JSON.stringify(entry)} is not key=value`, {
      hint: 'use e.g. --claim team=payments --claim level=3',
    })
  }
  const key = entry.slice(0, equals)
  const text = entry.slice(equals + 1)
  try {
    return [key, JSON.parse(text) as unknown]
  } catch {
    return [key, text]
  }
}

/** The claims of a request, checked; throws a UserError naming the flag at fault. */
export function tokenClaims(request: TokenRequest): Record<string, unknown> {
  const claims: Record<string, unknown> = {}
  for (const entry of request.claims) {
    const [key, value] = parseClaim(entry)
    const owner = FLAG_CLAIMS[key] ?? (key === request.roleClaim ? '--role' : undefined)
    if (owner) throw new UserError(`--claim ${key}: set it with ${owner}`, { hint: `pass ${owner} instead` })
    if (request.tenantClaim !== undefined && key === request.tenantClaim && request.tenant !== undefined) {
      throw new UserError(`--claim ${key}: set it with --tenant`, { hint: 'pass --tenant instead' })
    }
    claims[key] = value
  }
  if (request.role !== undefined) claims[request.roleClaim] = request.role
  if (request.tenant !== undefined) {
    if (!request.tenantClaim) {
      throw new UserError('--tenant needs the claim that carries it', {
        hint: 'pass --tenant-claim NAME or set QUEEN_TENANCY_CLAIM as the broker has it',
      })
    }
    if (!/^[A-Za-z0-9._-]{1,64}$/.test(request.tenant)) {
      throw new UserError(`--tenant ${JSON.stringify(request.tenant)} is not a tenant name`, {
        hint: 'a tenant is 1-64 characters of A-Z a-z 0-9 . _ -',
      })
    }
    claims[request.tenantClaim] = request.tenant
  }
  return claims
}

/** Signs the token (HS256). */
export async function mintToken(request: TokenRequest, env: NodeJS.ProcessEnv): Promise<MintedToken> {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(request.secretEnv)) {
    throw new UserError(`--secret-env ${JSON.stringify(request.secretEnv)} is not a variable name`, {
      hint: 'name the variable holding the secret, e.g. --secret-env JWT_SECRET',
    })
  }
  const secret = env[request.secretEnv]
  if (!secret) {
    throw new UserError(`${request.secretEnv} is not set (--secret-env names the variable holding the secret)`, {
      exitCode: EXIT.user,
      hint: `export ${request.secretEnv} with the broker's JWT_SECRET, then run again`,
    })
  }
  if (request.sub.trim() === '') throw new UserError('--sub must not be empty', { hint: 'pass e.g. --sub alice' })
  const claims = tokenClaims(request)
  const now = Math.floor(Date.now() / 1000)
  const jwt = new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(request.sub)
    .setIssuedAt(now)
  if (request.ttlMs > 0) jwt.setExpirationTime(now + Math.max(1, Math.round(request.ttlMs / 1000)))
  if (request.iss !== undefined) jwt.setIssuer(request.iss)
  if (request.aud !== undefined) jwt.setAudience(request.aud)
  const token = await jwt.sign(new TextEncoder().encode(secret))
  const [, payload] = token.split('.')
  const signed = JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8')) as Record<string, unknown>
  const bytes = Buffer.byteLength(secret, 'utf8')
  return {
    token,
    claims: signed,
    ...(bytes < 32 ? { warning: `${request.secretEnv} is ${bytes} bytes; the broker warns below 32` } : {}),
  }
}
