/**
 * QUEEN_TENANCY_CLAIM (docs/operations.md, "Tenancy"): with JWT on, the tenant header must equal the token's claim,
 * so a token of one tenant cannot act for another by changing the header.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { http, startTestBroker, type TestBroker } from '../../support/broker.js'
import { bearer, hsToken, SECRET } from './tokens.js'

const HEADER = 'X-Queen-Tenant'

let broker: TestBroker
beforeAll(async () => {
  broker = await startTestBroker({
    label: 'auth-tenant-claim',
    config: { auth: { enabled: true, secret: SECRET }, tenancy: { header: HEADER, claim: 'tenant' } },
  })
})
afterAll(async () => {
  await broker.close()
})

async function as(tenantClaim: unknown, headerTenant: string | undefined, role = 'read-write') {
  const headers: Record<string, string> = bearer(await hsToken({ sub: 'svc', role, tenant: tenantClaim }))
  if (headerTenant !== undefined) headers[HEADER] = headerTenant
  return headers
}

describe('the tenant bound to the token', () => {
  it('a header equal to the claim is served; the tenant sees only its own queue', async () => {
    const pushed = await http(
      broker,
      'POST',
      '/api/v1/push',
      { items: [{ queue: 'orders', payload: 1 }] },
      await as('acme', 'acme'),
    )
    expect(pushed.status).toBe(200)
    expect(pushed.body[0].status).toBe('queued')
    const popped = await http(broker, 'GET', '/api/v1/pop/queue/orders?wait=false', undefined, await as('acme', 'acme'))
    expect(popped.body.messages).toHaveLength(1)
  })

  it('a header that disagrees with the claim, or a token without the claim, is refused with 403', async () => {
    for (const [claim, header] of [
      ['acme', 'globex'],
      [undefined, 'acme'],
      [['acme'], 'acme'],
      ['ACME', 'acme'],
    ] as const) {
      const answer = await http(
        broker,
        'POST',
        '/api/v1/push',
        { items: [{ queue: 'orders', payload: 'stolen' }] },
        await as(claim, header),
      )
      expect(answer.status, `${JSON.stringify(claim)} vs ${header}`).toBe(403)
      expect(answer.body).toEqual({
        error: "X-Queen-Tenant does not match the token's tenant claim",
        code: 'QUEEN_ERR_FORBIDDEN',
      })
    }
    const { rows } = await broker.db.query('SELECT count(*)::int AS n FROM queen.messages')
    expect(rows[0].n).toBe(1)
  })

  it('the header is still required, and operator-only routes still refuse it', async () => {
    expect((await http(broker, 'GET', '/api/v1/resources/queues', undefined, await as('acme', undefined))).status).toBe(
      400,
    )
    const operator = await http(
      broker,
      'GET',
      '/api/v1/system/maintenance',
      undefined,
      await as('acme', 'acme', 'admin'),
    )
    expect(operator.status).toBe(403)
    expect(operator.body.error).toBe('operator-only route')
    expect(
      (await http(broker, 'GET', '/api/v1/system/maintenance', undefined, await as(undefined, undefined, 'admin')))
        .status,
    ).toBe(200)
  })

  it('authentication comes first: no token is 401 whatever the header', async () => {
    const answer = await http(broker, 'GET', '/api/v1/resources/queues', undefined, { [HEADER]: 'acme' })
    expect(answer.status).toBe(401)
  })
})
