/**
 * The Go queenctl compatibility tier, part three (docs/cli.md, "Compatibility with the Go queenctl"): the Auth lines
 * of the Go README against a real gateway (`queenctl proxy`, docs/gateway.md, "People: users, sessions and sign-in")
 * in front of a tenancy broker, and push's Go line when the broker spools (push maintenance on a broker with its disk
 * spool), each run unchanged through /bin/sh.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTenant } from '../../src/gateway/store/tenants.js'
import { http, startTestBroker, type TestBroker } from '../support/broker.js'
import { pgUrl } from '../support/cli-harness.js'
import { startTestGateway, type TestGateway } from '../support/gateway.js'
import { expectUsageError, goShell, type GoShell } from '../support/go-shell.js'

const PASSWORD = 'a long enough secret'

describe('the Auth lines of the Go queenctl README, against a queenctl proxy gateway', () => {
  let broker: TestBroker
  let gateway: TestGateway
  let shell: GoShell

  beforeAll(async () => {
    broker = await startTestBroker({ label: 'compat_cli_auth', config: { tenancy: { header: 'X-Queen-Tenant' } } })
    gateway = await startTestGateway({ upstreams: [broker.url], label: 'compat_cli_auth' })
    await createTenant(gateway.db, 'acme')
    shell = await goShell('queenctl-compat-auth-')
    const user = await shell.sh(
      `printf %s '${PASSWORD}' | queenctl proxy user create alice@example.com --tenant acme --role read-write --pg-url '${pgUrl(gateway.database)}'`,
    )
    expect(user.code, user.stderr).toBe(0)
    const context = await shell.sh(`queenctl config set-context acme --server ${gateway.url}`)
    expect(context.code, context.stderr).toBe(0)
  }, 60_000)
  afterAll(async () => {
    await gateway?.close()
    await broker?.close()
  })

  it('login --method password -u alice@example.com, then commands go through the gateway as alice; logout', async () => {
    const login = await shell.sh(`printf %s '${PASSWORD}' | queenctl login --method password -u alice@example.com`)
    expect(login).toEqual({
      code: 0,
      stdout: 'logged in to context "acme" as alice@example.com (tenant acme, read-write)\n',
      stderr: '',
    })
    expect(await shell.sh(`echo '{"who":"alice"}' | queenctl push inbox`)).toEqual({
      code: 0,
      stdout: 'queued=1 duplicate=0 failed=0\n',
      stderr: '',
    })
    // Stored in a tenant's space on the broker (not the default, empty one): the gateway rewrote it as alice's.
    const rows = await broker.db.query('SELECT name, tenant FROM queen.queues WHERE name = $1', ['inbox'])
    expect(rows.rows).toHaveLength(1)
    expect(rows.rows[0].tenant).not.toBe('')
    expect(await shell.sh('queenctl logout')).toEqual({ code: 0, stdout: 'logged out of context "acme"\n', stderr: '' })
    const after = await shell.sh(`echo '{"who":"nobody"}' | queenctl push inbox`)
    expect(after.code).toBe(3)
  })

  it('the Go login --help forms: -u (or --user) alone means --method password; --token T stores T', async () => {
    const user = await shell.sh(`printf %s '${PASSWORD}' | queenctl login --user alice@example.com`)
    expect(user.code, user.stderr).toBe(0)
    expect(user.stdout).toBe('logged in to context "acme" as alice@example.com (tenant acme, read-write)\n')
    expect((await shell.sh(`echo '{"n":1}' | queenctl push inbox`)).code).toBe(0)
    expect((await shell.sh('queenctl logout')).code).toBe(0)
    // A made-up token is stored as given (not checked at login), and the gateway refuses it afterwards.
    const token = await shell.sh('queenctl login --token qk_not_a_key')
    expect(token).toEqual({ code: 0, stdout: 'logged in to context "acme"\n', stderr: '' })
    const view = JSON.parse((await shell.sh('queenctl config view -o json --raw')).stdout)
    const ref = view.contexts.find((context: { name: string }) => context.name === 'acme')['token-ref'] as string
    expect((await shell.sh(`cat '${new URL(ref).pathname}'`)).stdout).toBe('qk_not_a_key\n')
    expect((await shell.sh(`echo '{"n":2}' | queenctl push inbox`)).code).toBe(3)
    expect((await shell.sh('queenctl logout')).code).toBe(0)
  })

  it('a wrong password exits 3; login --method google and github exit 1 naming what to use', async () => {
    const wrong = await shell.sh(`printf %s 'not the password' | queenctl login --method password -u alice@example.com`)
    expect(wrong.code).toBe(3)
    expect(wrong.stderr).toContain('Invalid username or password')
    for (const method of ['google', 'github']) {
      const run = await shell.sh(`queenctl login --method ${method}`)
      expectUsageError(run, `login --method ${method} is not supported by this queenctl`)
      expect(run.stderr).toContain('--method password')
      expect(run.stderr).toContain('--method token')
    }
  })
})

describe("push's Go line when the broker spools to disk", () => {
  let broker: TestBroker
  let shell: GoShell

  beforeAll(async () => {
    broker = await startTestBroker({ label: 'compat_cli_spool', durable: {} })
    shell = await goShell('queenctl-compat-spool-')
  })
  afterAll(async () => {
    await broker?.close()
  })

  it('queued=N duplicate=N failed=N, then buffered=N appended only when the broker buffered', async () => {
    const server = `--server ${broker.url}`
    expect(await shell.sh(`echo '{"a":1}' | queenctl push spooled ${server}`)).toEqual({
      code: 0,
      stdout: 'queued=1 duplicate=0 failed=0\n',
      stderr: '',
    })
    expect((await http(broker, 'POST', '/api/v1/system/maintenance', { enabled: true })).status).toBe(200)
    const buffered = await shell.sh(`printf '{"a":2}\\n{"a":3}\\n' | queenctl push spooled ${server}`)
    expect(buffered).toEqual({ code: 0, stdout: 'queued=0 duplicate=0 failed=0 buffered=2\n', stderr: '' })
    // The first three fields read as a Go script reads them.
    const fields = await shell.sh(`printf '{"a":4}\\n' | queenctl push spooled ${server} | awk '{ print $1, $2, $3 }'`)
    expect(fields.stdout).toBe('queued=0 duplicate=0 failed=0\n')
    expect((await http(broker, 'POST', '/api/v1/system/maintenance', { enabled: false })).status).toBe(200)
  })
})
