/**
 * The gateway with the real JavaScript client (docs/gateway.md): clients hold API keys, never a tenant. Two tenants
 * use the same queue names through one gateway in front of a broker with tenancy on; each sees only its own
 * messages, a spoofed tenancy header changes nothing, roles limit what a key may do, operator routes are refused.
 */
import { afterAll, beforeAll, expect, it } from 'vitest'
import { createApiKey } from '../../src/gateway/store/api-keys.js'
import { createTenant, setTenantStatus } from '../../src/gateway/store/tenants.js'
import { http, startTestBroker, type TestBroker } from '../support/broker.js'
import { startTestGateway, type TestGateway } from '../support/gateway.js'
import { closeQueen, describeWithClient, loadClient, openQueen, runConsumer } from '../compat/client.js'

const POLL_MS = 500

describeWithClient('the gateway with the real client', () => {
  let broker: TestBroker
  let gateway: TestGateway
  const keys: Record<string, string> = {}
  const tenantIds: Record<string, string> = {}
  const clients: Record<string, any> = {}

  beforeAll(async () => {
    broker = await startTestBroker({ label: 'gw_tenancy', config: { tenancy: { header: 'X-Queen-Tenant' } } })
    gateway = await startTestGateway({ upstreams: [broker.url], label: 'gw_tenancy' })
    for (const name of ['acme', 'globex']) {
      tenantIds[name] = (await createTenant(gateway.db, name)).id
      keys[name] = (await createApiKey(gateway.db, { tenant: name, role: 'tenant-admin' })).key
      // Each client also claims the other tenant in the header: the gateway must replace it.
      const spoofed = name === 'acme' ? 'globex' : 'acme'
      clients[name] = await openQueen(gateway, { bearerToken: keys[name], headers: { 'X-Queen-Tenant': spoofed } })
    }
  })
  afterAll(async () => {
    for (const queen of Object.values(clients)) await closeQueen(queen)
    await gateway?.close()
    await broker?.close()
  })

  it('pushes, consumes and acks per tenant; the same queue name holds each tenant its own messages', async () => {
    for (const [tenant, queen] of Object.entries(clients)) {
      await queen.queue('orders').config({ retryLimit: 0 }).create()
      const pushed = await queen
        .queue('orders')
        .partition('p1')
        .push([1, 2, 3].map((n) => ({ data: { tenant, n } })))
      expect(pushed.map((result: any) => result.status)).toEqual(['queued', 'queued', 'queued'])
    }
    for (const [tenant, queen] of Object.entries(clients)) {
      const seen: unknown[] = []
      const { reached, error } = await runConsumer(
        (signal) =>
          queen
            .queue('orders')
            .timeoutMillis(POLL_MS)
            .consume(
              (messages: any[]) => {
                for (const message of messages) seen.push(message.data)
              },
              { signal },
            ),
        () => seen.length >= 3,
      )
      expect(error).toBeUndefined()
      expect(reached).toBe(true)
      expect(seen).toEqual([1, 2, 3].map((n) => ({ tenant, n })))
      expect(await queen.queue('orders').wait(false).pop()).toEqual([])
    }
    // In the broker, each tenant's queue is stored under the tenant's id, not the name a client claimed.
    const stored = await broker.db.query(
      `SELECT q.tenant, count(*)::int AS messages FROM queen.messages m
         JOIN queen.partitions p ON p.id = m.partition_id JOIN queen.queues q ON q.id = p.queue_id
        WHERE q.name = 'orders' GROUP BY q.tenant ORDER BY q.tenant`,
    )
    expect(stored.rows).toEqual([tenantIds.acme, tenantIds.globex].sort().map((tenant) => ({ tenant, messages: 3 })))
  })

  it('runs a transaction (ack one message, push another) through the gateway', async () => {
    const queen = clients.acme
    await queen.queue('tx-in').push([{ data: { step: 1 } }])
    const [message] = await queen.queue('tx-in').wait(false).pop()
    expect(message.data).toEqual({ step: 1 })
    await queen
      .transaction()
      .ack(message)
      .queue('tx-out')
      .push([{ data: { step: 2 } }])
      .commit()
    const [next] = await queen.queue('tx-out').wait(false).pop()
    expect(next.data).toEqual({ step: 2 })
    expect(await clients.globex.queue('tx-out').wait(false).pop()).toEqual([])
  })

  it("runs the client's streams through the gateway: a map into a sink and a window aggregate, per tenant", async () => {
    const { Stream } = await loadClient()
    const quiet = () => undefined
    const errors: string[] = []
    const run = (stream: any, tenant: string, queryId: string) =>
      stream.run({
        url: gateway.url,
        bearerToken: keys[tenant],
        queryId,
        maxWaitMillis: 300,
        logger: { info: quiet, warn: quiet, error: quiet },
        onError: (error: any) => errors.push(`${tenant} ${queryId}: ${error?.message ?? String(error)}`),
      })
    const handles: any[] = []
    try {
      const sums: Record<string, number[]> = { acme: [], globex: [] }
      for (const [tenant, queen] of Object.entries(clients)) {
        await queen.queue('st-src').create()
        await queen.queue('st-out').create()
        const factor = tenant === 'acme' ? 10 : 100
        await queen
          .queue('st-src')
          .partition('p1')
          .push([1, 2, 3].map((n) => ({ data: { n } })))
        handles.push(
          await run(
            Stream.from(queen.queue('st-src'))
              .map((m: any) => ({ n: m.data.n * factor }))
              .to(queen.queue('st-out')),
            tenant,
            'gw-map',
          ),
          await run(
            Stream.from(queen.queue('st-src'))
              .windowTumbling({ seconds: 1, idleFlushMs: 200 })
              .aggregate({ sum: (d: any) => d.n })
              .foreach((value: any) => {
                sums[tenant]!.push(value.sum)
              }),
            tenant,
            'gw-window',
          ),
        )
      }
      for (const [tenant, queen] of Object.entries(clients)) {
        const factor = tenant === 'acme' ? 10 : 100
        const out: unknown[] = []
        const deadline = Date.now() + 15_000
        while (out.length < 3 && Date.now() < deadline && errors.length === 0) {
          for (const message of await queen.queue('st-out').batch(10).wait(false).pop()) {
            out.push(message.data)
            await queen.ack(message)
          }
          if (out.length < 3) await new Promise((resolve) => setTimeout(resolve, 100))
        }
        expect(errors).toEqual([])
        // Each tenant's stream read its own source and wrote its own sink, under the same names.
        expect(out).toEqual([1, 2, 3].map((n) => ({ n: n * factor })))
      }
      const deadline = Date.now() + 10_000
      while ((sums.acme!.length === 0 || sums.globex!.length === 0) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      expect(errors).toEqual([])
      // Three messages pushed in one request may straddle a window boundary: the windows add up to 6 either way.
      expect(sums.acme!.reduce((a, b) => a + b, 0)).toBe(6)
      expect(sums.globex!.reduce((a, b) => a + b, 0)).toBe(6)
    } finally {
      await Promise.all(handles.map((handle) => handle.stop()))
    }
  })

  it("lists only the caller's own queues", async () => {
    await clients.globex.queue('globex-only').push([{ data: 1 }])
    const acme = await http(gateway, 'GET', '/api/v1/resources/queues', undefined, {
      authorization: `Bearer ${keys.acme}`,
    })
    expect(acme.status).toBe(200)
    const names = JSON.stringify(acme.body)
    expect(names).toContain('orders')
    expect(names).not.toContain('globex-only')
  })

  it('refuses a request without a key, with a malformed key and with an unknown key', async () => {
    const path = '/api/v1/pop/queue/orders?wait=false'
    expect(await http(gateway, 'GET', path)).toMatchObject({ status: 401, body: { error: 'Authentication required' } })
    const malformed = await http(gateway, 'GET', path, undefined, { authorization: 'Bearer not-a-key' })
    expect(malformed).toMatchObject({ status: 401, body: { error: 'Invalid API key' } })
    const unknown = keys.acme!.slice(0, -4) + 'AAAA'
    const forged = await http(gateway, 'GET', path, undefined, { authorization: `Bearer ${unknown}` })
    expect(forged).toMatchObject({ status: 401, body: { error: 'Invalid API key' } })
  })

  it('refuses operator routes to every tenant key, even a tenant admin', async () => {
    for (const [method, path] of [
      ['GET', '/api/v1/system/maintenance'],
      ['POST', '/api/v1/system/maintenance'],
      ['GET', '/metrics/prometheus'],
      ['GET', '/metrics'],
      ['POST', '/internal/api/notify'],
      ['POST', '/api/v1/stats/refresh'],
    ] as const) {
      const answer = await http(gateway, method, path, method === 'POST' ? {} : undefined, {
        authorization: `Bearer ${keys.acme}`,
      })
      expect({ method, path, status: answer.status, body: answer.body }).toEqual({
        method,
        path,
        status: 403,
        body: { error: 'operator-only route' },
      })
    }
    // And a route the brokers do not serve is not forwarded.
    const unknown = await http(gateway, 'GET', '/api/v1/nothing-here', undefined, {
      authorization: `Bearer ${keys.acme}`,
    })
    expect(unknown).toMatchObject({ status: 404, body: { error: 'Route GET /api/v1/nothing-here not found' } })
  })

  it('limits each role to what it may do', async () => {
    const roleKey = async (role: string) => (await createApiKey(gateway.db, { tenant: 'acme', role })).key
    const readOnly = await roleKey('read-only')
    const producer = await roleKey('producer')
    const consumer = await roleKey('consumer')
    const readWrite = await roleKey('read-write')
    const push = (key: string) =>
      http(
        gateway,
        'POST',
        '/api/v1/push',
        { items: [{ queue: 'roles', payload: { n: 1 } }] },
        { authorization: `Bearer ${key}` },
      )
    const pop = (key: string) =>
      http(gateway, 'GET', '/api/v1/pop/queue/roles?wait=false', undefined, { authorization: `Bearer ${key}` })
    const list = (key: string) =>
      http(gateway, 'GET', '/api/v1/resources/queues', undefined, { authorization: `Bearer ${key}` })
    const configure = (key: string) =>
      http(
        gateway,
        'POST',
        '/api/v1/configure',
        { queue: 'roles', options: { retryLimit: 2 } },
        { authorization: `Bearer ${key}` },
      )
    const denied = { status: 403, body: { error: 'Insufficient permissions' } }

    expect(await push(readOnly)).toMatchObject(denied)
    expect(await pop(readOnly)).toMatchObject(denied)
    expect((await list(readOnly)).status).toBe(200)

    expect((await push(producer)).status).toBe(200)
    expect(await pop(producer)).toMatchObject(denied)
    expect(await list(producer)).toMatchObject(denied)

    expect(await push(consumer)).toMatchObject(denied)
    const popped = await pop(consumer)
    expect(popped.status).toBe(200)
    expect(popped.body.messages.map((m: any) => m.data)).toEqual([{ n: 1 }])

    expect(await configure(readWrite)).toMatchObject(denied)
    expect((await configure(keys.acme!)).status).toBe(200)
  })

  it('refuses the keys of a suspended tenant, and takes them back when it is active again', async () => {
    const path = '/api/v1/resources/queues'
    const auth = { authorization: `Bearer ${keys.globex}` }
    expect((await http(gateway, 'GET', path, undefined, auth)).status).toBe(200)
    await setTenantStatus(gateway.db, 'globex', 'suspended')
    let answer = await http(gateway, 'GET', path, undefined, auth)
    for (let tries = 0; answer.status === 200 && tries < 40; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 50))
      answer = await http(gateway, 'GET', path, undefined, auth)
    }
    expect(answer).toMatchObject({ status: 403, body: { error: 'Tenant suspended' } })
    await setTenantStatus(gateway.db, 'globex', 'active')
    for (let tries = 0; answer.status !== 200 && tries < 40; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 50))
      answer = await http(gateway, 'GET', path, undefined, auth)
    }
    expect(answer.status).toBe(200)
  })

  it('passes /health through without a key, and answers its own /proxy/health', async () => {
    const health = await http(gateway, 'GET', '/health')
    expect(health.status).toBe(200)
    const own = await http(gateway, 'GET', '/proxy/health')
    expect(own.status).toBe(200)
    expect(own.body).toMatchObject({ status: 'healthy', database: 'ok', keyChanges: 'listening' })
    expect(own.body.brokers).toEqual([expect.objectContaining({ url: broker.url, healthy: true })])
  })
})
