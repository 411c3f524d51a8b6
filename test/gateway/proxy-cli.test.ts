/**
 * The README's way to run the gateway, as a user does it: `queenctl proxy serve` with its defaults (an embedded
 * PostgreSQL of its own in PROXY_DATA_DIR), then `proxy tenant create` and `proxy apikey create` against it with no
 * connection flags, then the real client with that key. Also: listings never show a key, revocation by prefix, the
 * `--yes` rule of the destructive verbs, configuration errors naming the variable, and SIGTERM exiting 0.
 */
import { rm } from 'node:fs/promises'
import path from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { http, startTestBroker, type TestBroker } from '../support/broker.js'
import { runCli, startCli, stopLeftoverPostmaster, tempDir, type TestProcess } from '../support/cli-harness.js'
import { closeQueen, describeWithClient, openQueen, waitFor } from '../compat/client.js'

describeWithClient('queenctl proxy from the command line', () => {
  let broker: TestBroker
  let dataDir: string
  let gateway: TestProcess
  let url: string
  let env: Record<string, string>

  beforeAll(async () => {
    broker = await startTestBroker({ label: 'gw_cli', config: { tenancy: { header: 'X-Queen-Tenant' } } })
    dataDir = await tempDir('proxy-data')
    env = { PROXY_DATA_DIR: dataDir }
    gateway = startCli(['proxy', 'serve', '--port', '0', '--host', '127.0.0.1', '--upstreams', broker.url], { env })
    const match = await gateway.waitFor(/\blistening\b.*\bhttp=([\d.]+):(\d+)/, 60_000)
    url = `http://${match[1]}:${match[2]}`
  }, 90_000)
  afterAll(async () => {
    await gateway?.kill()
    if (dataDir) {
      await stopLeftoverPostmaster(path.join(dataDir, 'pg'))
      await rm(dataDir, { recursive: true, force: true })
    }
    await broker?.close()
  })

  it('logs its effective configuration at boot, secrets redacted', () => {
    const output = gateway.output()
    expect(output).toContain(`config: brokers upstreams=${broker.url} tenancy_header=X-Queen-Tenant`)
    expect(output).toContain(`config: database mode=embedded data_dir=${dataDir}`)
  })

  it('creates a tenant and a key with no connection flags, and the real client works with the key', async () => {
    const tenant = await runCli(['proxy', 'tenant', 'create', 'acme', '-o', 'json'], { env })
    expect(tenant.code, tenant.stderr).toBe(0)
    const created = JSON.parse(tenant.stdout)
    expect(created).toMatchObject({ name: 'acme', status: 'active' })
    const apikey = await runCli(['proxy', 'apikey', 'create', '--tenant', 'acme', '--role', 'read-write'], { env })
    expect(apikey.code, apikey.stderr).toBe(0)
    const key = apikey.stdout.trim()
    expect(key).toMatch(/^qk_[a-z2-7]{10}_[A-Za-z0-9_-]{43}$/)
    expect(apikey.stderr).toContain('shown only now')

    const queen = await openQueen({ url }, { bearerToken: key })
    try {
      await queen.queue('cli-orders').push([{ data: { n: 1 } }])
      const [message] = await queen.queue('cli-orders').wait(false).pop()
      expect(message.data).toEqual({ n: 1 })
      expect((await queen.ack(message)).success).toBe(true)
    } finally {
      await closeQueen(queen)
    }
    // The broker stored it under the tenant's id.
    const stored = await broker.db.query("SELECT tenant FROM queen.queues WHERE name = 'cli-orders'")
    expect(stored.rows).toEqual([{ tenant: created.id }])

    // Listings show the prefix, never the key.
    const list = await runCli(['proxy', 'apikey', 'list', '--tenant', 'acme', '-o', 'json'], { env })
    expect(list.code, list.stderr).toBe(0)
    const keys = JSON.parse(list.stdout)
    expect(keys).toHaveLength(1)
    expect(keys[0]).toMatchObject({ prefix: key.slice(0, 13), tenant: 'acme', role: 'read-write', revokedAt: null })
    expect(list.stdout).not.toContain(key.slice(14))

    // Revoking needs --yes off a terminal, takes the prefix, and the key stops working.
    const refused = await runCli(['proxy', 'apikey', 'revoke', key.slice(0, 13)], { env })
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('--yes')
    expect(
      (await http({ url }, 'GET', '/api/v1/resources/queues', undefined, { authorization: `Bearer ${key}` })).status,
    ).toBe(200)
    const revoked = await runCli(['proxy', 'apikey', 'revoke', key.slice(0, 13), '--yes'], { env })
    expect(revoked.code, revoked.stderr).toBe(0)
    expect(
      await waitFor(
        async () =>
          (await http({ url }, 'GET', '/api/v1/resources/queues', undefined, { authorization: `Bearer ${key}` }))
            .status === 401,
        2000,
      ),
    ).toBe(true)
    const again = await runCli(['proxy', 'apikey', 'revoke', key.slice(0, 13), '--yes'], { env })
    expect(again.code).toBe(4)
  }, 60_000)

  it('refuses a duplicate tenant, an unknown role and an unknown tenant, naming what is wrong', async () => {
    const duplicate = await runCli(['proxy', 'tenant', 'create', 'acme'], { env })
    expect(duplicate.code).toBe(1)
    expect(duplicate.stderr).toContain('tenant acme already exists')
    const role = await runCli(['proxy', 'apikey', 'create', '--tenant', 'acme', '--role', 'root'], { env })
    expect(role.code).toBe(1)
    expect(role.stderr).toContain('--role')
    const nobody = await runCli(['proxy', 'apikey', 'create', '--tenant', 'nobody', '--role', 'read-only'], { env })
    expect(nobody.code).toBe(1)
    expect(nobody.stderr).toContain('no tenant nobody')
    const badName = await runCli(['proxy', 'tenant', 'create', 'no spaces'], { env })
    expect(badName.code).toBe(1)
    expect(badName.stderr).toContain('must match')
  })

  it('deletes a tenant with --yes, and its keys with it', async () => {
    await runCli(['proxy', 'tenant', 'create', 'short-lived'], { env })
    const made = await runCli(['proxy', 'apikey', 'create', '--tenant', 'short-lived', '--role', 'read-only'], { env })
    const key = made.stdout.trim()
    expect(
      (await http({ url }, 'GET', '/api/v1/resources/queues', undefined, { authorization: `Bearer ${key}` })).status,
    ).toBe(200)
    const dry = await runCli(['proxy', 'tenant', 'delete', 'short-lived', '--dry-run'], { env })
    expect(dry.code).toBe(0)
    expect(dry.stderr).toContain('would delete tenant short-lived')
    const deleted = await runCli(['proxy', 'tenant', 'delete', 'short-lived', '--yes'], { env })
    expect(deleted.code, deleted.stderr).toBe(0)
    const tenants = JSON.parse((await runCli(['proxy', 'tenant', 'list', '-o', 'json'], { env })).stdout)
    expect(tenants.map((row: any) => row.name)).toEqual(['acme'])
    expect(
      await waitFor(
        async () =>
          (await http({ url }, 'GET', '/api/v1/resources/queues', undefined, { authorization: `Bearer ${key}` }))
            .status === 401,
        2000,
      ),
    ).toBe(true)
  })

  it('refuses a bad configuration, naming the variable', async () => {
    const bad = await runCli(['proxy', 'serve', '--print-config'], {
      env: { ...env, PROXY_UPSTREAMS: 'ftp://nowhere', PROXY_PORT: 'eighty' },
    })
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain('PROXY_UPSTREAMS')
    expect(bad.stderr).toContain('PROXY_PORT')
  })

  it('drains on SIGTERM: a parked long-poll gets its answer, then the gateway exits 0', async () => {
    expect((await runCli(['proxy', 'tenant', 'create', 'drainer'], { env })).code).toBe(0)
    const apikey = await runCli(['proxy', 'apikey', 'create', '--tenant', 'drainer', '--role', 'consumer'], { env })
    expect(apikey.code, apikey.stderr).toBe(0)
    const key = apikey.stdout.trim()
    // Parked for up to 3 s on an empty queue; SIGTERM arrives while it waits.
    const parked = http({ url }, 'GET', '/api/v1/pop/queue/drain-q?wait=true&timeout=3000', undefined, {
      authorization: `Bearer ${key}`,
    })
    await new Promise((resolve) => setTimeout(resolve, 500))
    const signalled = Date.now()
    gateway.child.kill('SIGTERM')
    const answer = await parked
    // The broker's own answer to a long-poll that found nothing, passed through while the gateway drains.
    expect({ status: answer.status, messages: answer.body?.messages }).toEqual({ status: 200, messages: [] })
    expect(Date.now() - signalled).toBeGreaterThan(1500)
    const exit = await gateway.exited(30_000)
    expect(exit.code).toBe(0)
    expect(gateway.output()).toMatch(/shutdown.*phase=stopped|phase.*stopped/)
  })
})
