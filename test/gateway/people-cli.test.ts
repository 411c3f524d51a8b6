/**
 * People from the command line (docs/gateway.md, "People: users, sessions and sign-in"): `proxy user create|list|
 * delete` on the gateway's database with the password on stdin, then `queenctl login --method password` against the
 * gateway, which stores only a reference to the session token in the contexts file; `queue list` through the gateway
 * with it sees the user's tenant; `logout` ends the session at the gateway.
 */
import { readFile, stat } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApiKey } from '../../src/gateway/store/api-keys.js'
import { createTenant } from '../../src/gateway/store/tenants.js'
import { http, startTestBroker, type TestBroker } from '../support/broker.js'
import { startTestGateway, type TestGateway } from '../support/gateway.js'
import { pgUrl, runCli, tempDir } from '../support/cli-harness.js'

const PASSWORD = 'a long enough secret'

describe('queenctl proxy user and login --method password', () => {
  let broker: TestBroker
  let gateway: TestGateway
  let pg: string
  let config: string
  let env: Record<string, string>

  beforeAll(async () => {
    broker = await startTestBroker({ label: 'gw_people_cli', config: { tenancy: { header: 'X-Queen-Tenant' } } })
    gateway = await startTestGateway({ upstreams: [broker.url], label: 'gw_people_cli' })
    pg = pgUrl(gateway.database)
    await createTenant(gateway.db, 'acme')
    await createTenant(gateway.db, 'globex')
    config = path.join(await tempDir('people-cli'), 'config.yaml')
    env = { QUEEN_CONFIG: config }
    // A queue in each tenant, pushed with keys.
    for (const tenant of ['acme', 'globex']) {
      const { key } = await createApiKey(gateway.db, { tenant, role: 'read-write' })
      const pushed = await http(
        gateway,
        'POST',
        '/api/v1/push',
        { items: [{ queue: `${tenant}-queue`, payload: { tenant } }] },
        { authorization: `Bearer ${key}` },
      )
      expect(pushed.status).toBe(200)
    }
  }, 60_000)
  afterAll(async () => {
    await gateway?.close()
    await broker?.close()
  })

  it('creates users with the password from stdin, refuses bad input naming it, and lists them without secrets', async () => {
    const created = await runCli(
      ['proxy', 'user', 'create', 'alice', '--tenant', 'acme', '--role', 'read-write', '--pg-url', pg],
      { input: `${PASSWORD}\n` },
    )
    expect(created.code, created.stderr).toBe(0)
    expect(created.stderr).toContain('created user alice in tenant acme (read-write)')
    const short = await runCli(
      ['proxy', 'user', 'create', 'bob', '--tenant', 'acme', '--role', 'read-only', '--pg-url', pg],
      { input: 'short\n' },
    )
    expect(short.code).toBe(1)
    expect(short.stderr).toContain('at least 8 characters')
    const none = await runCli(
      ['proxy', 'user', 'create', 'bob', '--tenant', 'acme', '--role', 'read-only', '--pg-url', pg],
      { input: '' },
    )
    expect(none.code).toBe(1)
    expect(none.stderr).toContain('no password on stdin')
    const role = await runCli(
      ['proxy', 'user', 'create', 'bob', '--tenant', 'acme', '--role', 'root', '--pg-url', pg],
      {
        input: `${PASSWORD}\n`,
      },
    )
    expect(role.code).toBe(1)
    expect(role.stderr).toContain('--role')
    const tenant = await runCli(
      ['proxy', 'user', 'create', 'bob', '--tenant', 'nobody', '--role', 'read-only', '--pg-url', pg],
      { input: `${PASSWORD}\n` },
    )
    expect(tenant.code).toBe(1)
    expect(tenant.stderr).toContain('no tenant nobody')
    const again = await runCli(
      ['proxy', 'user', 'create', 'alice', '--tenant', 'acme', '--role', 'read-only', '--pg-url', pg],
      { input: `${PASSWORD}\n` },
    )
    expect(again.code).toBe(1)
    expect(again.stderr).toContain('already exists')

    // A user of the OpenID provider has no password: none is read.
    const oidc = await runCli([
      'proxy',
      'user',
      'create',
      'olga',
      '--tenant',
      'globex',
      '--role',
      'read-only',
      '--oidc-subject',
      'olga-sub',
      '--pg-url',
      pg,
    ])
    expect(oidc.code, oidc.stderr).toBe(0)
    const olga = await runCli(['proxy', 'user', 'list', '--tenant', 'globex', '--pg-url', pg, '-o', 'table'])
    expect(olga.stdout).toMatch(/olga\s+globex\s+read-only\s+oidc\s+0/)
    const deleteOlga = await runCli(['proxy', 'user', 'delete', 'olga', '--yes', '--pg-url', pg])
    expect(deleteOlga.code, deleteOlga.stderr).toBe(0)

    const list = await runCli(['proxy', 'user', 'list', '--pg-url', pg, '-o', 'json'])
    expect(list.code, list.stderr).toBe(0)
    expect(JSON.parse(list.stdout)).toEqual([
      expect.objectContaining({
        name: 'alice',
        tenant: 'acme',
        role: 'read-write',
        hasPassword: true,
        activeSessions: 0,
      }),
    ])
    expect(list.stdout).not.toContain(PASSWORD)
    const table = await runCli(['proxy', 'user', 'list', '--pg-url', pg, '-o', 'table'])
    expect(table.stdout).toMatch(/NAME\s+TENANT\s+ROLE\s+SIGN-IN\s+SESSIONS/)
    expect(table.stdout).toMatch(/alice\s+acme\s+read-write\s+password\s+0/)
  })

  it('logs in with --method password, stores only a reference, and queue list goes through the gateway', async () => {
    const context = await runCli(['config', 'set-context', 'gw', '--server', gateway.url], { env })
    expect(context.code, context.stderr).toBe(0)
    const wrong = await runCli(['login', '--method', 'password', '-u', 'alice', '--context', 'gw'], {
      env,
      input: 'wrong password\n',
    })
    expect(wrong.code).toBe(3)
    expect(wrong.stderr).toContain('Invalid username or password')
    const tokenWithServer = await runCli(['login', '--method', 'token', '--server', gateway.url, '--context', 'gw'], {
      env,
      input: 'qk_whatever\n',
    })
    expect(tokenWithServer.code).toBe(1)
    expect(tokenWithServer.stderr).toContain('--server is for --method password')
    const noUser = await runCli(['login', '--method', 'password', '--context', 'gw'], { env, input: `${PASSWORD}\n` })
    expect(noUser.code).toBe(1)
    expect(noUser.stderr).toContain('-u')

    const login = await runCli(['login', '--method', 'password', '-u', 'alice', '--context', 'gw'], {
      env,
      input: `${PASSWORD}\n`,
    })
    expect(login.code, login.stderr).toBe(0)
    expect(login.stdout).toBe('logged in to context "gw" as alice (tenant acme, read-write)\n')
    const contexts = await readFile(config, 'utf8')
    expect(contexts).not.toMatch(/qs_/)
    const ref = /token-ref: (file:\/\/\S+)/.exec(contexts)?.[1]
    expect(ref).toMatch(/\/tokens\/gw\.token$/)
    const tokenPath = fileURLToPath(ref!)
    expect((await stat(tokenPath)).mode & 0o777).toBe(0o600)
    const token = (await readFile(tokenPath, 'utf8')).trim()
    expect(token).toMatch(/^qs_[A-Za-z0-9_-]{43}$/)

    const queues = await runCli(['queue', 'list', '--context', 'gw', '-o', 'json'], { env })
    expect(queues.code, queues.stderr).toBe(0)
    expect(queues.stdout).toContain('acme-queue')
    expect(queues.stdout).not.toContain('globex-queue')

    const users = JSON.parse((await runCli(['proxy', 'user', 'list', '--pg-url', pg, '-o', 'json'])).stdout)
    expect(users[0].activeSessions).toBe(1)

    // logout forgets the reference and ends the session at the gateway.
    const logout = await runCli(['logout', '--context', 'gw'], { env })
    expect(logout.code, logout.stderr).toBe(0)
    expect(await readFile(config, 'utf8')).not.toContain('token-ref: file')
    const me = await http(gateway, 'GET', '/api/me', undefined, { authorization: `Bearer ${token}` })
    expect(me.status).toBe(401)
  })

  it('deletes a user only with --yes (or shows what --dry-run would do), ending their sessions', async () => {
    const login = await http(gateway, 'POST', '/api/login', { username: 'alice', password: PASSWORD })
    const auth = { authorization: `Bearer ${login.body.token}` }
    expect((await http(gateway, 'GET', '/api/me', undefined, auth)).status).toBe(200)
    const refused = await runCli(['proxy', 'user', 'delete', 'alice', '--pg-url', pg])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('--yes')
    const dry = await runCli(['proxy', 'user', 'delete', 'alice', '--dry-run', '--pg-url', pg])
    expect(dry.code).toBe(0)
    expect(dry.stderr).toContain('would delete user alice of tenant acme and end 1 session(s)')
    expect((await http(gateway, 'GET', '/api/me', undefined, auth)).status).toBe(200)
    const deleted = await runCli(['proxy', 'user', 'delete', 'alice', '--yes', '--pg-url', pg])
    expect(deleted.code, deleted.stderr).toBe(0)
    expect(deleted.stderr).toContain('deleted user alice and ended 1 session(s)')
    const start = Date.now()
    let status = 200
    while (status !== 401 && Date.now() - start < 2000) {
      status = (await http(gateway, 'GET', '/api/me', undefined, auth)).status
    }
    expect(status).toBe(401)
    const missing = await runCli(['proxy', 'user', 'delete', 'alice', '--yes', '--pg-url', pg])
    expect(missing.code).toBe(4)
  })
})
