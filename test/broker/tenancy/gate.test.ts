import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { http, startTestBroker, type TestBroker } from '../../support/broker.js'

const ACME = { 'X-Queen-Tenant': 'acme' }
const GLOBEX = { 'X-Queen-Tenant': 'globex' }

describe('tenancy header gate (docs/operations.md, "Tenancy")', () => {
  let broker: TestBroker
  beforeAll(async () => {
    broker = await startTestBroker({ label: 'tenancy-gate', config: { tenancy: { header: 'X-Queen-Tenant' } } })
  })
  afterAll(async () => {
    await broker.close()
  })

  it('a tenant route without the header answers 400 naming the header', async () => {
    const answer = await http(broker, 'GET', '/api/v1/resources/queues')
    expect(answer.status).toBe(400)
    expect(answer.body.error).toBe('X-Queen-Tenant header is required')
  })

  it('a tenant route with an invalid header value answers 400 naming the header', async () => {
    for (const bad of ['has space', 'x'.repeat(65), 'a/b']) {
      const answer = await http(broker, 'GET', '/api/v1/resources/queues', undefined, { 'X-Queen-Tenant': bad })
      expect(answer.status, bad).toBe(400)
      expect(answer.body.error, bad).toContain('X-Queen-Tenant header is invalid')
      expect(answer.body.code, bad).toBe('QUEEN_ERR_VALIDATION')
    }
  })

  it('operator-only routes refuse the header with 403 and serve requests without it', async () => {
    for (const path of ['/metrics', '/metrics/prometheus']) {
      const refused = await http(broker, 'GET', path, undefined, ACME)
      expect(refused.status, path).toBe(403)
      expect(refused.body.error, path).toBe('operator-only route')
      const served = await http(broker, 'GET', path)
      expect(served.status, path).toBe(200)
    }
  })

  it('/health ignores the header', async () => {
    expect((await http(broker, 'GET', '/health', undefined, ACME)).status).toBe(200)
    expect((await http(broker, 'GET', '/health')).status).toBe(200)
  })

  it('two tenants each own a queue orders: pushes and pops stay in their tenant', async () => {
    const pushA = await http(
      broker,
      'POST',
      '/api/v1/push',
      { items: [{ queue: 'orders', payload: { who: 'acme' } }] },
      ACME,
    )
    expect(pushA.status).toBeLessThan(300)
    const pushG = await http(
      broker,
      'POST',
      '/api/v1/push',
      { items: [{ queue: 'orders', payload: { who: 'globex' } }] },
      GLOBEX,
    )
    expect(pushG.status).toBeLessThan(300)
    const rows = await broker.db.query<{ tenant: string }>(
      `SELECT tenant FROM queen.queues WHERE name = 'orders' ORDER BY tenant`,
    )
    expect(rows.rows.map((row) => row.tenant)).toEqual(['acme', 'globex'])
    const popA = await http(broker, 'GET', '/api/v1/pop/queue/orders?batch=10&wait=false', undefined, ACME)
    expect(popA.status).toBe(200)
    expect(popA.body.messages.map((m: { data: { who: string } }) => m.data.who)).toEqual(['acme'])
  })

  it("a tenant cannot read or list the other tenant's messages", async () => {
    await http(broker, 'POST', '/api/v1/push', { items: [{ queue: 'orders', payload: { who: 'globex-2' } }] }, GLOBEX)
    const popG = await http(broker, 'GET', '/api/v1/pop/queue/orders?batch=1&wait=false', undefined, GLOBEX)
    const message = popG.body.messages[0]
    const read = await http(
      broker,
      'GET',
      `/api/v1/messages/${message.partitionId}/${message.transactionId}`,
      undefined,
      ACME,
    )
    expect(read.status).toBe(404)
    const listing = await http(broker, 'GET', '/api/v1/resources/queues', undefined, ACME)
    expect(JSON.stringify(listing.body)).not.toContain('globex')
  })
})
