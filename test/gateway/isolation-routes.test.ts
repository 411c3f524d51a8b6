/**
 * Two tenants with the same queue name behind the gateway, in front of a broker that verifies JWTs
 * (docs/gateway.md, "Isolation"): the gateway mints each request's token with the key's tenant, and every
 * read route (consumer groups, messages, traces, DLQ, queue counts) shows a tenant its own data only. Also
 * a key past its expiry and a key revoked by its id.
 */
import { afterAll, beforeAll, expect, it } from 'vitest'
import { createApiKey, revokeApiKey } from '../../src/gateway/store/api-keys.js'
import { createTenant } from '../../src/gateway/store/tenants.js'
import { http, startTestBroker, type TestBroker } from '../support/broker.js'
import { startTestGateway, type TestGateway } from '../support/gateway.js'
import { SECRET } from '../broker/auth/tokens.js'
import { closeQueen, describeWithClient, openQueen } from '../compat/client.js'

const HEADER = 'X-Queen-Tenant'
const TENANTS = { acme: 2, globex: 3 } as const
type Tenant = keyof typeof TENANTS

describeWithClient('two tenants on every route, through a gateway minting JWTs', () => {
  let broker: TestBroker
  let gateway: TestGateway
  const keys = {} as Record<Tenant, string>
  const clients = {} as Record<Tenant, any>
  const pushedIds = {} as Record<Tenant, string[]>

  const get = (tenant: Tenant, path: string) =>
    http(gateway, 'GET', path, undefined, { authorization: `Bearer ${keys[tenant]}` })
  const post = (tenant: Tenant, path: string, body: unknown) =>
    http(gateway, 'POST', path, body, { authorization: `Bearer ${keys[tenant]}` })

  beforeAll(async () => {
    broker = await startTestBroker({
      label: 'gw_jwt_iso',
      config: { auth: { enabled: true, secret: SECRET }, tenancy: { header: HEADER, claim: 'tenant' } },
    })
    gateway = await startTestGateway({
      upstreams: [broker.url],
      label: 'gw_jwt_iso',
      env: { PROXY_UPSTREAM_JWT_SECRET: SECRET, PROXY_UPSTREAM_JWT_TENANT_CLAIM: 'tenant' },
    })
    for (const tenant of Object.keys(TENANTS) as Tenant[]) {
      await createTenant(gateway.db, tenant)
      keys[tenant] = (await createApiKey(gateway.db, { tenant, role: 'tenant-admin' })).key
      clients[tenant] = await openQueen(gateway, { bearerToken: keys[tenant] })
    }
    // Each tenant: queue "shared" (no retries), its own pushes, its own group; one message traced, one acked
    // as failed into the dead-letter queue, the rest left pending.
    for (const [tenant, count] of Object.entries(TENANTS) as [Tenant, number][]) {
      await clients[tenant].queue('shared').config({ retryLimit: 0 }).create()
      const items = Array.from({ length: count }, (_, n) => ({
        transactionId: `${tenant}-${n}`,
        data: { owner: tenant, n },
      }))
      const pushed = await clients[tenant].queue('shared').partition('p1').push(items)
      expect(pushed.map((result: any) => result.status)).toEqual(items.map(() => 'queued'))
      pushedIds[tenant] = items.map((item) => item.transactionId)
      const popped = await get(tenant, `/api/v1/pop/queue/shared?consumerGroup=g-${tenant}&batch=1&wait=false`)
      expect(popped.status).toBe(200)
      const [message] = popped.body.messages
      expect(message.data).toEqual({ owner: tenant, n: 0 })
      const traced = await post(tenant, '/api/v1/traces', {
        transactionId: message.transactionId,
        partitionId: message.partitionId,
        consumerGroup: `g-${tenant}`,
        traceNames: ['order-flow'],
        data: { note: `trace-of-${tenant}` },
      })
      expect(traced.status).toBe(200)
      const failed = await post(tenant, '/api/v1/ack', {
        transactionId: message.transactionId,
        partitionId: message.partitionId,
        leaseId: message.leaseId,
        consumerGroup: `g-${tenant}`,
        status: 'failed',
        error: `boom-of-${tenant}`,
      })
      expect(failed.status).toBe(200)
    }
  })
  afterAll(async () => {
    for (const queen of Object.values(clients)) await closeQueen(queen)
    await gateway?.close()
    await broker?.close()
  })

  it('reaches a broker that refuses requests without a token', async () => {
    const direct = await http(broker, 'GET', '/api/v1/resources/queues')
    expect(direct.status).toBe(401)
    expect((await get('acme', '/api/v1/resources/queues')).status).toBe(200)
  })

  // Each route's answer, read as a user would: what of it belongs to whom.
  const checks: [string, string, (tenant: Tenant, body: any) => void][] = [
    [
      'consumer groups',
      '/api/v1/consumer-groups',
      (tenant, body) => {
        expect(body.map((group: any) => group.name)).toEqual([`g-${tenant}`])
      },
    ],
    [
      'messages',
      '/api/v1/messages?queue=shared&limit=100',
      (tenant, body) => {
        expect(body.messages.map((message: any) => message.transactionId).sort()).toEqual([...pushedIds[tenant]].sort())
      },
    ],
    [
      'traces by name',
      '/api/v1/traces/by-name/order-flow',
      (tenant, body) => {
        const text = JSON.stringify(body)
        expect(text).toContain(`trace-of-${tenant}`)
        expect(text).not.toContain(`trace-of-${other(tenant)}`)
      },
    ],
    [
      'trace names',
      '/api/v1/traces/names',
      (_tenant, body) => {
        expect(body.trace_names.map((name: any) => [name.trace_name, name.trace_count])).toEqual([['order-flow', 1]])
      },
    ],
    [
      'dead-letter queue',
      '/api/v1/dlq?queue=shared',
      (tenant, body) => {
        expect(body.total).toBe(1)
        expect(body.messages.map((message: any) => [message.errorMessage, message.data])).toEqual([
          [`boom-of-${tenant}`, { owner: tenant, n: 0 }],
        ])
      },
    ],
    [
      'queue resource',
      '/api/v1/resources/queues/shared',
      (tenant, body) => {
        queueIds[tenant] = body.id
        expect(body.totals).toMatchObject({ total: TENANTS[tenant], deadLetter: 1 })
      },
    ],
    [
      'queue status',
      '/api/v1/status/queues',
      (tenant, body) => {
        expect(body.queues.map((queue: any) => queue.id)).toEqual([queueIds[tenant]])
      },
    ],
  ]
  const other = (tenant: Tenant): Tenant => (tenant === 'acme' ? 'globex' : 'acme')
  const queueIds = {} as Record<Tenant, string>

  for (const [label, path, check] of checks) {
    it(`shows each tenant only its own ${label}`, async () => {
      for (const tenant of Object.keys(TENANTS) as Tenant[]) {
        const answer = await get(tenant, path)
        expect({ path, status: answer.status }).toEqual({ path, status: 200 })
        check(tenant, answer.body)
      }
    })
  }

  it('keeps the two queues called "shared" apart in the broker', () => {
    expect(queueIds.acme).toBeDefined()
    expect(queueIds.acme).not.toBe(queueIds.globex)
  })

  it('refuses a key past its expiry, and a key revoked by its id', async () => {
    const expired = await createApiKey(gateway.db, {
      tenant: 'acme',
      role: 'read-only',
      expiresAt: new Date(Date.now() - 1000),
    })
    const late = await http(gateway, 'GET', '/api/v1/resources/queues', undefined, {
      authorization: `Bearer ${expired.key}`,
    })
    expect(late).toMatchObject({ status: 401, body: { error: 'API key expired' } })

    const revoked = await createApiKey(gateway.db, { tenant: 'acme', role: 'read-only' })
    const before = await http(gateway, 'GET', '/api/v1/resources/queues', undefined, {
      authorization: `Bearer ${revoked.key}`,
    })
    expect(before.status).toBe(200)
    await revokeApiKey(gateway.db, revoked.id)
    const deadline = Date.now() + 2000
    let after = before
    while (Date.now() < deadline) {
      after = await http(gateway, 'GET', '/api/v1/resources/queues', undefined, {
        authorization: `Bearer ${revoked.key}`,
      })
      if (after.status === 401) break
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    expect(after.status).toBe(401)
  })
})
