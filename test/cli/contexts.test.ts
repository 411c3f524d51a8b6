import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import {
  contextsPath,
  loadContextsFile,
  parseContextsFile,
  resolveConnection,
  resolveDatabaseRef,
  resolveTokenRef,
} from '../../src/cli/contexts.js'
import { UserError } from '../../src/cli/errors.js'

const dirs: string[] = []
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true })
})

async function tempDir(): Promise<string> {
  const dir = await mkdtemp('/tmp/queenctl-contexts-')
  dirs.push(dir)
  return dir
}

/** A file in the Go CLI's format, with keys neither CLI defines. */
const GO_FILE = `current-context: prod
preferences:
  colors: true
contexts:
  - name: prod
    server: https://queen.example.com
    token-ref: env
    insecure: false
    labels: { team: payments }
  - name: local
    server: http://localhost:6632
  - name: acme
    server: https://gateway.example.com/api/v1/
    token-ref: literal:acme-token
    tenant: acme
    tenancy-header: X-Tenant
    database: env:QUEEN_PG_URL
  - name: old
    server: https://old.example.com
    token-ref: keychain://queenctl/old
`

async function writeConfig(text: string = GO_FILE): Promise<string> {
  const file = path.join(await tempDir(), 'config.yaml')
  await writeFile(file, text)
  return file
}

async function rejection(promise: Promise<unknown>): Promise<UserError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  )
  expect(error).toBeInstanceOf(UserError)
  return error as UserError
}

describe('the contexts file', () => {
  it('reads the Go CLI format and keeps keys it does not know', () => {
    const file = parseContextsFile(GO_FILE, 'config.yaml')
    expect(file['current-context']).toBe('prod')
    expect(file.preferences).toEqual({ colors: true })
    expect(file.contexts.map((context) => context.name)).toEqual(['prod', 'local', 'acme', 'old'])
    expect(file.contexts[0]).toEqual({
      name: 'prod',
      server: 'https://queen.example.com',
      'token-ref': 'env',
      insecure: false,
      labels: { team: 'payments' },
    })
  })

  it('treats a missing or empty file as an empty configuration', async () => {
    const dir = await tempDir()
    expect(await loadContextsFile(path.join(dir, 'absent.yaml'))).toEqual({ contexts: [] })
    const empty = path.join(dir, 'empty.yaml')
    await writeFile(empty, '')
    expect(await loadContextsFile(empty)).toEqual({ contexts: [] })
  })

  it('names the file when it is not valid YAML or not shaped like a contexts file (exit 1)', async () => {
    const broken = await writeConfig('contexts: [\n')
    const error = await rejection(loadContextsFile(broken))
    expect(error.exitCode).toBe(1)
    expect(error.message).toContain(broken)
    expect(() => parseContextsFile('contexts:\n  - server: http://x\n', 'c.yaml')).toThrow(/contexts\[0\] has no name/)
    expect(() => parseContextsFile('contexts: {}\n', 'c.yaml')).toThrow(/contexts must be a list/)
  })

  it('is found at --config, else QUEEN_CONFIG, else ~/.queen/config.yaml', () => {
    expect(contextsPath('/a.yaml', { QUEEN_CONFIG: '/b.yaml' }, '/home/me')).toBe('/a.yaml')
    expect(contextsPath(undefined, { QUEEN_CONFIG: '/b.yaml' }, '/home/me')).toBe('/b.yaml')
    expect(contextsPath(undefined, {}, '/home/me')).toBe('/home/me/.queen/config.yaml')
  })
})

describe('token references', () => {
  it('reads env, env:VAR, file://, literal: and bare strings; empty means anonymous', async () => {
    const dir = await tempDir()
    const tokenFile = path.join(dir, 'token')
    await writeFile(tokenFile, '  file-token\n')
    const env = { QUEEN_TOKEN: 'env-token', OTHER: 'other-token' }
    expect(await resolveTokenRef('env', 'c', env)).toBe('env-token')
    expect(await resolveTokenRef('env:OTHER', 'c', env)).toBe('other-token')
    expect(await resolveTokenRef(pathToFileURL(tokenFile).href, 'c', env)).toBe('file-token')
    expect(await resolveTokenRef('literal:lit-token', 'c', env)).toBe('lit-token')
    expect(await resolveTokenRef('bare-token', 'c', env)).toBe('bare-token')
    expect(await resolveTokenRef('', 'c', env)).toBeUndefined()
    expect(await resolveTokenRef(undefined, 'c', env)).toBeUndefined()
  })

  it('refuses keychain references with exit 3 and says how to replace them', async () => {
    const error = await rejection(resolveTokenRef('keychain://queenctl/old', 'old', {}))
    expect(error.exitCode).toBe(3)
    expect(error.message).toContain('keychain')
    expect(error.hint).toContain('queenctl config set-context old --token-ref')
    expect(error.hint).toContain('QUEEN_TOKEN')
  })

  it('exits 3 for an unreadable file or an unset variable', async () => {
    const missing = await rejection(resolveTokenRef('file:///nonexistent/queen/token', 'c', {}))
    expect(missing.exitCode).toBe(3)
    expect(missing.message).toContain('/nonexistent/queen/token')
    const unset = await rejection(resolveTokenRef('env:NOPE', 'c', {}))
    expect(unset.exitCode).toBe(3)
    expect(unset.message).toContain('NOPE is not set')
  })

  it('reads database references and refuses other schemes', async () => {
    expect(await resolveDatabaseRef('env:QUEEN_PG_URL', 'c', { QUEEN_PG_URL: 'postgres://x/y' })).toBe('postgres://x/y')
    expect(await resolveDatabaseRef('literal:postgres://a/b', 'c', {})).toBe('postgres://a/b')
    const bad = await rejection(resolveDatabaseRef('postgres://a/b', 'c', {}))
    expect(bad.exitCode).toBe(1)
  })
})

describe('resolution order (docs/cli.md, "Resolution order")', () => {
  it('uses current-context, normalises its server and reads its token-ref lazily', async () => {
    const config = await writeConfig()
    const connection = await resolveConnection({ config }, { QUEEN_TOKEN: 'from-env' })
    expect(connection.context?.name).toBe('prod')
    expect(connection.server).toBe('https://queen.example.com')
    expect(connection.token).toBe('from-env')
    expect(connection.insecure).toBe(false)
  })

  it('prefers --context over QUEEN_CONTEXT over current-context', async () => {
    const config = await writeConfig()
    expect((await resolveConnection({ config }, { QUEEN_CONTEXT: 'local' })).server).toBe('http://localhost:6632')
    const acme = await resolveConnection({ config, context: 'acme' }, { QUEEN_CONTEXT: 'local' })
    expect(acme.server).toBe('https://gateway.example.com')
    expect(acme.token).toBe('acme-token')
    expect(acme.tenant).toBe('acme')
    expect(acme.tenancyHeader).toBe('X-Tenant')
  })

  it('prefers --server over QUEEN_SERVER over the context, and flags and env over the token-ref', async () => {
    const config = await writeConfig()
    const env = { QUEEN_SERVER: 'http://env:1', QUEEN_TOKEN: 'env-token', QUEEN_TENANT: 'env-tenant' }
    const fromEnv = await resolveConnection({ config, context: 'acme' }, env)
    expect(fromEnv).toMatchObject({ server: 'http://env:1', token: 'env-token', tenant: 'env-tenant' })
    const fromFlags = await resolveConnection(
      { config, context: 'acme', server: 'http://flag:2', token: 'flag-token', tenant: 'flag-tenant', insecure: true },
      env,
    )
    expect(fromFlags).toMatchObject({
      server: 'http://flag:2',
      token: 'flag-token',
      tenant: 'flag-tenant',
      insecure: true,
    })
  })

  it('does not read a keychain token-ref when a token is given, and refuses it otherwise', async () => {
    const config = await writeConfig()
    expect((await resolveConnection({ config, context: 'old', token: 't' }, {})).token).toBe('t')
    const error = await rejection(resolveConnection({ config, context: 'old' }, {}))
    expect(error.exitCode).toBe(3)
  })

  it('falls back to http://localhost:6632 and X-Queen-Tenant without a file', async () => {
    const connection = await resolveConnection({ config: '/nonexistent/queen.yaml' }, {})
    expect(connection).toMatchObject({
      server: 'http://localhost:6632',
      token: undefined,
      tenant: undefined,
      tenancyHeader: 'X-Queen-Tenant',
      insecure: false,
      context: undefined,
    })
    expect(
      (await resolveConnection({ config: '/nonexistent/q.yaml' }, { QUEEN_TENANCY_HEADER: 'X-T' })).tenancyHeader,
    ).toBe('X-T')
  })

  it('makes an unknown context a user error listing the known ones', async () => {
    const config = await writeConfig()
    const error = await rejection(resolveConnection({ config, context: 'staging' }, {}))
    expect(error.exitCode).toBe(1)
    expect(error.message).toContain('"staging"')
    expect(error.hint).toContain('prod, local, acme, old')
  })

  it('refuses a server that is not an http(s) URL', async () => {
    const error = await rejection(resolveConnection({ config: '/nonexistent/q.yaml', server: 'ftp://x' }, {}))
    expect(error.exitCode).toBe(1)
  })
})
