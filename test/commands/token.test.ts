/**
 * `queenctl token create` (issue 19 part 4): the token it prints verifies with jose against the secret
 * named by --secret-env, carrying the sub, role, exp and the other claims asked for; bad input names the
 * flag or variable at fault.
 */
import { decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose'
import { describe, expect, it } from 'vitest'
import TokenCreate from '../../src/commands/token/create.js'
import { runCommand } from '../support/run-command.js'

const SECRET = 'a-development-secret-of-32-bytes!'
const key = (secret: string) => new TextEncoder().encode(secret)
const BASE_ENV = { JWT_SECRET: SECRET, JWT_ROLES_CLAIM: undefined, QUEEN_TENANCY_CLAIM: undefined }

const create = (argv: string[], env: Record<string, string | undefined> = {}) =>
  runCommand(TokenCreate, 'token:create', argv, { env: { ...BASE_ENV, ...env } })

describe('queenctl token create', () => {
  it('prints a bare HS256 token that verifies against the secret with sub, role and exp', async () => {
    const before = Math.floor(Date.now() / 1000)
    const result = await create(['--secret-env', 'JWT_SECRET', '--sub', 'alice', '--role', 'read-write', '--ttl', '1h'])
    expect(result.code, result.stderr).toBe(0)
    expect(result.stderr).toBe('')
    const token = result.stdout.trim()
    expect(result.stdout).toBe(`${token}\n`)
    expect(token.split('.')).toHaveLength(3)
    const { payload, protectedHeader } = await jwtVerify(token, key(SECRET), { algorithms: ['HS256'] })
    expect(protectedHeader.alg).toBe('HS256')
    expect(payload.sub).toBe('alice')
    expect(payload.role).toBe('read-write')
    expect(payload.iat).toBeGreaterThanOrEqual(before)
    expect(payload.exp! - payload.iat!).toBe(3600)
    await expect(jwtVerify(token, key('another-secret-of-thirty-two-byt'))).rejects.toThrow(/signature/)
  })

  it('adds iss, aud, extra claims as JSON values and a tenant; -o json shows the claims', async () => {
    const result = await create(
      [
        '--sub',
        'ci',
        '--role',
        'admin',
        '--iss',
        'https://auth.example.com',
        '--aud',
        'queen',
        '--claim',
        'team=payments',
        '--claim',
        'level=3',
        '--claim',
        'groups=["a","b"]',
        '--tenant',
        'acme',
        '--tenant-claim',
        'tenant',
        '--ttl',
        '15m',
        '-o',
        'json',
      ],
      { JWT_ROLES_CLAIM: 'queen_role' },
    )
    expect(result.code, result.stderr).toBe(0)
    const minted = JSON.parse(result.stdout)
    const { payload } = await jwtVerify(minted.token, key(SECRET), {
      issuer: 'https://auth.example.com',
      audience: 'queen',
    })
    expect(payload).toMatchObject({
      sub: 'ci',
      queen_role: 'admin',
      team: 'payments',
      level: 3,
      groups: ['a', 'b'],
      tenant: 'acme',
    })
    expect(payload.role).toBeUndefined()
    expect(payload.exp! - payload.iat!).toBe(900)
    expect(minted.claims).toEqual(payload)
  })

  it('takes the tenant claim from QUEEN_TENANCY_CLAIM and leaves exp out with --ttl 0', async () => {
    const result = await create(['--sub', 'bot', '--tenant', 'acme', '--ttl', '0'], { QUEEN_TENANCY_CLAIM: 'org' })
    expect(result.code, result.stderr).toBe(0)
    const payload = decodeJwt(result.stdout.trim())
    expect(payload).toMatchObject({ sub: 'bot', org: 'acme' })
    expect(payload.exp).toBeUndefined()
    expect(decodeProtectedHeader(result.stdout.trim()).typ).toBe('JWT')
  })

  it('reads the secret from the variable named by --secret-env and warns about a short one', async () => {
    const result = await create(['--secret-env', 'DEV_SECRET', '--sub', 'alice'], { DEV_SECRET: 'short' })
    expect(result.code).toBe(0)
    expect(result.stderr).toBe('warning: DEV_SECRET is 5 bytes; the broker warns below 32\n')
    await jwtVerify(result.stdout.trim(), key('short'))
  })

  it('names the variable when the secret is missing, and the flag of every bad input', async () => {
    expect(await create(['--secret-env', 'NOPE_SECRET', '--sub', 'alice'])).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'queenctl: NOPE_SECRET is not set (--secret-env names the variable holding the secret)\n' +
        "hint: export NOPE_SECRET with the broker's JWT_SECRET, then run again\n",
    })
    const noSub = await create(['--role', 'admin'])
    expect(noSub.code).toBe(1)
    expect(noSub.stderr).toContain('Missing required flag sub')
    const badTtl = await create(['--sub', 'a', '--ttl', 'soon'])
    expect(badTtl.code).toBe(1)
    expect(badTtl.stderr.split('\n')[0]).toBe('queenctl: --ttl: "soon" is not a duration')
    const badClaim = await create(['--sub', 'a', '--claim', 'novalue'])
    expect(badClaim.stderr.split('\n')[0]).toBe('queenctl: --claim "novalue" is not key=value')
    const reserved = await create(['--sub', 'a', '--claim', 'sub=bob'])
    expect(reserved.stderr.split('\n')[0]).toBe('queenctl: --claim sub: set it with --sub')
    const tenantless = await create(['--sub', 'a', '--tenant', 'acme'])
    expect(tenantless.code).toBe(1)
    expect(tenantless.stderr).toBe(
      'queenctl: --tenant needs the claim that carries it\n' +
        'hint: pass --tenant-claim NAME or set QUEEN_TENANCY_CLAIM as the broker has it\n',
    )
    const badTenant = await create(['--sub', 'a', '--tenant', 'a b', '--tenant-claim', 'tenant'])
    expect(badTenant.stderr.split('\n')[0]).toBe('queenctl: --tenant "a b" is not a tenant name')
  })
})
