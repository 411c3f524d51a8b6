/**
 * `queenctl proxy quota set|get` as a user runs them (docs/gateway.md, "Quotas and rate limits"), on the database of
 * a running gateway: values and sizes read, only the named limits changed, "unlimited" clears one, bad flags and
 * values refused naming the flag, a key carries only rate limits, and the running gateway applies a change.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApiKey } from '../../src/gateway/store/api-keys.js'
import { createTenant } from '../../src/gateway/store/tenants.js'
import { http, startTestBroker, type TestBroker } from '../support/broker.js'
import { startTestGateway, type TestGateway } from '../support/gateway.js'
import { createEmptyDatabase, dropDatabase, pgUrl, runCli } from '../support/cli-harness.js'

describe('queenctl proxy quota', () => {
  let broker: TestBroker
  let database: string
  let gateway: TestGateway
  let url: string
  let keyPrefix: string
  let key: string

  const quota = (...args: string[]) => runCli(['proxy', 'quota', ...args, '--pg-url', url])

  beforeAll(async () => {
    broker = await startTestBroker({ label: 'gw_quota_cli', config: { tenancy: { header: 'X-Queen-Tenant' } } })
    database = await createEmptyDatabase('gw_quota_cli')
    gateway = await startTestGateway({ upstreams: [broker.url], database })
    url = pgUrl(database)
    await createTenant(gateway.db, 'acme')
    const created = await createApiKey(gateway.db, { tenant: 'acme', role: 'read-write' })
    keyPrefix = created.prefix
    key = created.key
  })
  afterAll(async () => {
    await gateway?.close()
    if (database) await dropDatabase(database)
    await broker?.close()
  })

  it('shows every limit unlimited before any is set', async () => {
    const got = await quota('get', '--tenant', 'acme', '-o', 'json')
    expect(got.code, got.stderr).toBe(0)
    expect(JSON.parse(got.stdout)).toMatchObject({
      tenant: 'acme',
      limits: {
        queues: null,
        partitions: null,
        messagesPerDay: null,
        payloadBytesPerDay: null,
        storedBytes: null,
        requestsPerSecond: null,
        messagesPerSecond: null,
      },
      today: { messages: 0, payloadBytes: 0 },
    })
  })

  it('sets the named limits only, reads sizes, and clears one with "unlimited"', async () => {
    const set = await quota(
      'set',
      '--tenant',
      'acme',
      '--queues',
      '50',
      '--payload-bytes-per-day',
      '2GiB',
      '-o',
      'json',
    )
    expect(set.code, set.stderr).toBe(0)
    expect(JSON.parse(set.stdout).limits).toMatchObject({ queues: 50, payloadBytesPerDay: 2 * 1024 ** 3 })
    const more = await quota(
      'set',
      '--tenant',
      'acme',
      '--requests-per-second',
      '12.5',
      '--stored-bytes',
      '500MB',
      '-o',
      'table',
    )
    expect(more.code, more.stderr).toBe(0)
    expect(more.stdout).toContain('requests-per-second')
    expect(more.stdout).toContain('12.5')
    const cleared = await quota('set', '--tenant', 'acme', '--queues', 'unlimited', '-o', 'json')
    expect(JSON.parse(cleared.stdout).limits).toEqual({
      queues: null,
      partitions: null,
      messagesPerDay: null,
      payloadBytesPerDay: 2 * 1024 ** 3,
      storedBytes: 500_000_000,
      requestsPerSecond: 12.5,
      messagesPerSecond: null,
    })
  })

  it("sets a key's rate limits by its visible prefix", async () => {
    const set = await quota('set', '--key', keyPrefix, '--messages-per-second', '300', '-o', 'json')
    expect(set.code, set.stderr).toBe(0)
    const got = await quota('get', '--key', keyPrefix, '-o', 'json')
    expect(JSON.parse(got.stdout)).toMatchObject({
      key: keyPrefix,
      tenant: 'acme',
      limits: { requestsPerSecond: null, messagesPerSecond: 300 },
    })
  })

  it('refuses bad input naming the flag', async () => {
    const badValue = await quota('set', '--tenant', 'acme', '--queues', 'ten')
    expect(badValue.code).toBe(1)
    expect(badValue.stderr).toContain('--queues: "ten" is not a whole number')
    const badSize = await quota('set', '--tenant', 'acme', '--stored-bytes', '5 parsecs')
    expect(badSize.code).toBe(1)
    expect(badSize.stderr).toContain('--stored-bytes')
    const badRate = await quota('set', '--tenant', 'acme', '--requests-per-second', '0')
    expect(badRate.code).toBe(1)
    expect(badRate.stderr).toContain('--requests-per-second: "0" is not a positive number')
    const unknown = await quota('set', '--tenant', 'acme', '--queue', '5')
    expect(unknown.code).not.toBe(0)
    expect(unknown.stderr).toContain('--queue')
    const keyQuota = await quota('set', '--key', keyPrefix, '--queues', '5')
    expect(keyQuota.code).toBe(1)
    expect(keyQuota.stderr).toContain('--queues is a tenant quota')
    const nothing = await quota('set', '--tenant', 'acme')
    expect(nothing.code).toBe(1)
    expect(nothing.stderr).toContain('name at least one limit')
    const neither = await quota('get')
    expect(neither.code).not.toBe(0)
    expect(neither.stderr).toMatch(/--tenant|--key/)
    const noTenant = await quota('get', '--tenant', 'nobody')
    expect(noTenant.code).toBe(1)
    expect(noTenant.stderr).toContain('no tenant nobody')
  })

  it('is applied by the running gateway within 2 s, and get counts what was pushed today', async () => {
    const auth = { authorization: `Bearer ${key}` }
    // Only the per-day quota is under test here: the key's rate limit set above is cleared.
    expect((await quota('set', '--key', keyPrefix, '--messages-per-second', 'unlimited')).code).toBe(0)
    let admitted = 0
    let last: { status: number; body: any } | undefined
    const push = async () => {
      last = await http(gateway, 'POST', '/api/v1/push', { items: [{ queue: 'cli', payload: 'x' }] }, auth)
      if (last.status === 200) admitted += 1
      return last.status
    }
    expect(await push()).toBe(200)
    const set = await quota('set', '--tenant', 'acme', '--messages-per-day', '3', '--requests-per-second', 'unlimited')
    expect(set.code, set.stderr).toBe(0)
    const setAt = Date.now()
    // Until the gateway has the change, the tenant's old requests-per-second may refuse a push: wait those out.
    while (Date.now() - setAt < 5000) {
      const status = await push()
      if (status === 429 && last?.body.quota !== undefined) break
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 50))
    }
    expect(last).toMatchObject({ status: 429, body: { quota: 'messages-per-day', limit: 3 } })
    expect(Date.now() - setAt).toBeLessThan(2000)
    // The counters run since the tenant has a counted quota (stored bytes, set above): every admitted push.
    const got = await quota('get', '--tenant', 'acme', '-o', 'json')
    expect(JSON.parse(got.stdout).today.messages).toBe(admitted)
    expect(admitted).toBeGreaterThanOrEqual(3)
  })
})
