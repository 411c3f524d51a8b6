/**
 * The gateway as a fleet (docs/gateway.md): two gateway replicas on one database, where a key revoked through one
 * is refused by the other within 2 s; and brokers behind it, where a broker that is down is skipped, a long-poll
 * passes through and is answered when a message arrives, and a closing gateway lets a parked long-poll finish.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApiKey, revokeApiKey } from '../../src/gateway/store/api-keys.js'
import { createTenant } from '../../src/gateway/store/tenants.js'
import { closeGateway } from '../../src/gateway/gateway.js'
import { http, startTestBroker, type TestBroker } from '../support/broker.js'
import { startTestGateway, type TestGateway } from '../support/gateway.js'
import { createEmptyDatabase, dropDatabase } from '../support/cli-harness.js'

/** A port nobody listens on: bound, then closed. */
/**
 * A broker address that refuses connections for the whole file. Port 1 is privileged and never handed out by
 * an ephemeral bind: a port freed after a listen(0) was taken by another test's server in a CI run, and the
 * "dead" broker answered 401.
 */
const DEAD_PORT = 1

describe('the gateway as a fleet', () => {
  let broker: TestBroker
  let database: string
  let first: TestGateway
  let second: TestGateway
  let deadUrl: string

  beforeAll(async () => {
    broker = await startTestBroker({ label: 'gw_fleet', config: { tenancy: { header: 'X-Queen-Tenant' } } })
    database = await createEmptyDatabase('gw_fleet')
    deadUrl = `http://127.0.0.1:${DEAD_PORT}`
    // The first gateway lists a dead broker first; health probes are slowed so requests meet it.
    first = await startTestGateway({
      upstreams: [deadUrl, broker.url],
      database,
      env: { PROXY_HEALTH_INTERVAL_MS: '60000' },
    })
    second = await startTestGateway({ upstreams: [broker.url], database })
    await createTenant(first.db, 'acme')
  })
  afterAll(async () => {
    await first?.close()
    await second?.close()
    if (database) await dropDatabase(database)
    await broker?.close()
  })

  it('refuses a key revoked through one replica on the other within 2 s', async () => {
    const { key, id } = await createApiKey(first.db, { tenant: 'acme', role: 'read-write' })
    const auth = { authorization: `Bearer ${key}` }
    // Both replicas have verified and cached the key.
    expect((await http(first, 'GET', '/api/v1/resources/queues', undefined, auth)).status).toBe(200)
    expect((await http(second, 'GET', '/api/v1/resources/queues', undefined, auth)).status).toBe(200)
    const revokedAt = Date.now()
    await revokeApiKey(first.db, id)
    let answer = await http(second, 'GET', '/api/v1/resources/queues', undefined, auth)
    while (answer.status === 200 && Date.now() - revokedAt < 5000) {
      await new Promise((resolve) => setTimeout(resolve, 20))
      answer = await http(second, 'GET', '/api/v1/resources/queues', undefined, auth)
    }
    const tookMs = Date.now() - revokedAt
    expect(answer).toMatchObject({ status: 401, body: { error: 'API key revoked' } })
    expect(tookMs).toBeLessThan(2000)
  })

  it('records when a key was last used, in batches', async () => {
    const { key, id } = await createApiKey(second.db, { tenant: 'acme', role: 'read-only' })
    const before = Date.now()
    expect(
      (await http(second, 'GET', '/api/v1/resources/queues', undefined, { authorization: `Bearer ${key}` })).status,
    ).toBe(200)
    const unwritten = await second.db.query('SELECT last_used_at FROM queen_proxy.api_keys WHERE id = $1', [id])
    expect(unwritten.rows).toEqual([{ last_used_at: null }])
    await second.app.gateway.lastUsed.runOnce()
    const written = await second.db.query('SELECT last_used_at FROM queen_proxy.api_keys WHERE id = $1', [id])
    expect(written.rows[0].last_used_at.getTime()).toBeGreaterThanOrEqual(before - 1000)
  })

  it('skips a broker that cannot be reached, for every request, and reports it unhealthy', async () => {
    const { key } = await createApiKey(first.db, { tenant: 'acme', role: 'read-write' })
    const auth = { authorization: `Bearer ${key}` }
    for (let n = 0; n < 4; n++) {
      const pushed = await http(first, 'POST', '/api/v1/push', { items: [{ queue: 'failover', payload: { n } }] }, auth)
      expect(pushed.status).toBe(200)
    }
    const stored = await broker.db.query(
      "SELECT count(*)::int AS n FROM queen.messages m JOIN queen.partitions p ON p.id = m.partition_id JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = 'failover'",
    )
    expect(stored.rows).toEqual([{ n: 4 }])
    const health = await http(first, 'GET', '/proxy/health')
    expect(health.status).toBe(200)
    expect(health.body.brokers).toEqual([
      expect.objectContaining({ url: deadUrl, healthy: false, lastError: 'ECONNREFUSED' }),
      expect.objectContaining({ url: broker.url, healthy: true }),
    ])
  })

  it('answers 502 naming the cause when no broker can be reached', async () => {
    const lonely = await startTestGateway({ upstreams: [deadUrl], database })
    try {
      const { key } = await createApiKey(lonely.db, { tenant: 'acme', role: 'read-write' })
      const answer = await http(lonely, 'GET', '/api/v1/resources/queues', undefined, {
        authorization: `Bearer ${key}`,
      })
      expect(answer.status).toBe(502)
      expect(answer.body.error).toContain('ECONNREFUSED')
      expect((await http(lonely, 'GET', '/proxy/health')).status).toBe(503)
    } finally {
      await lonely.close({ keepDatabase: true })
    }
  })

  it('passes a long-poll through: it waits at the broker and is answered by a push', async () => {
    const { key } = await createApiKey(second.db, { tenant: 'acme', role: 'read-write' })
    const auth = { authorization: `Bearer ${key}` }
    const started = Date.now()
    const parked = http(second, 'GET', '/api/v1/pop/queue/longpoll?wait=true&timeout=20000', undefined, auth)
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(broker.services.waiters.parked).toBe(1)
    await http(second, 'POST', '/api/v1/push', { items: [{ queue: 'longpoll', payload: { late: true } }] }, auth)
    const answer = await parked
    expect(answer.status).toBe(200)
    expect(answer.body.messages.map((m: any) => m.data)).toEqual([{ late: true }])
    expect(Date.now() - started).toBeLessThan(10_000)
  })

  it('releases the broker when a client gives up its long-poll', async () => {
    const { key } = await createApiKey(second.db, { tenant: 'acme', role: 'read-write' })
    const controller = new AbortController()
    const leaving = fetch(`${second.url}/api/v1/pop/queue/abandoned?wait=true&timeout=20000`, {
      headers: { authorization: `Bearer ${key}` },
      signal: controller.signal,
    }).catch(() => undefined)
    for (let waited = 0; broker.services.waiters.parked !== 1 && waited < 5000; waited += 20) {
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    expect(broker.services.waiters.parked).toBe(1)
    controller.abort()
    await leaving
    for (let waited = 0; broker.services.waiters.parked !== 0 && waited < 5000; waited += 20) {
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    expect(broker.services.waiters.parked).toBe(0)
  })

  it('lets a parked long-poll finish while the gateway closes', async () => {
    const closing = await startTestGateway({ upstreams: [broker.url], database })
    const { key } = await createApiKey(closing.db, { tenant: 'acme', role: 'read-write' })
    const auth = { authorization: `Bearer ${key}` }
    const parked = http(closing, 'GET', '/api/v1/pop/queue/drain?wait=true&timeout=1500', undefined, auth)
    for (let waited = 0; broker.services.waiters.parked !== 1 && waited < 5000; waited += 20) {
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    const closingStarted = Date.now()
    const closed = closeGateway(closing.app, 10_000)
    const answer = await parked
    // The broker answered the long-poll at its timeout (204, empty), through the closing gateway.
    expect([200, 204]).toContain(answer.status)
    await closed
    // Closed once the long-poll was answered, well inside the 10 s budget.
    expect(Date.now() - closingStarted).toBeLessThan(5000)
    await closing.close({ keepDatabase: true }).catch(() => undefined)
  })
})
