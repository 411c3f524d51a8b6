/**
 * Who may read `/metrics` and `/metrics/prometheus` with JWT on (issue 40, docs/security.md). Their series
 * carry every tenant's and queue's name: where tenancy is off the default `JWT_SKIP_PATHS` keeps them
 * public (operations.md 9.4); where it is on they need an admin token unless `JWT_SKIP_PATHS` lists them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { http, startTestBroker, type TestBroker } from '../../support/broker.js'
import { bearer, hsToken, SECRET } from './tokens.js'

const HEADER = 'X-Queen-Tenant'
const METRICS = ['/metrics', '/metrics/prometheus']
const JWT = { JWT_ENABLED: 'true', JWT_SECRET: SECRET }

/** A broker whose Prometheus text names tenant t1's queue: what an anonymous caller must not read. */
async function brokerWith(label: string, env: Record<string, string>): Promise<TestBroker> {
  const broker = await startTestBroker({ label, env })
  const headers = {
    ...bearer(await hsToken({ role: 'read-write' })),
    ...(env.QUEEN_TENANCY_HEADER ? { [HEADER]: 't1' } : {}),
  }
  const pushed = await http(broker, 'POST', '/api/v1/push', { items: [{ queue: 'secret-q', payload: 1 }] }, headers)
  expect(pushed.status).toBe(200)
  return broker
}

const get = async (broker: TestBroker, path: string, role?: string) =>
  http(broker, 'GET', path, undefined, role === undefined ? {} : bearer(await hsToken({ role })))

describe('with tenancy on and the default JWT_SKIP_PATHS', () => {
  let broker: TestBroker
  beforeAll(async () => {
    broker = await brokerWith('metrics-tenancy', { ...JWT, QUEEN_TENANCY_HEADER: HEADER })
  })
  afterAll(async () => {
    await broker.close()
  })

  it('refuses anonymous callers (401) and read-only or read-write tokens (403)', async () => {
    for (const path of METRICS) {
      const anonymous = await get(broker, path)
      expect(anonymous.status, path).toBe(401)
      expect(JSON.stringify(anonymous.body)).not.toContain('secret-q')
      for (const role of ['read-only', 'read-write']) {
        const answer = await get(broker, path, role)
        expect(answer.status, `${path} ${role}`).toBe(403)
        expect(answer.body).toEqual({ error: 'Insufficient permissions', code: 'QUEEN_ERR_FORBIDDEN' })
      }
    }
  })

  it('serves an admin token', async () => {
    const prometheus = await get(broker, '/metrics/prometheus', 'admin')
    expect(prometheus.status).toBe(200)
    expect(prometheus.body).toContain('queue="secret-q"')
    expect((await get(broker, '/metrics', 'admin')).status).toBe(200)
  })

  it('keeps /health public', async () => {
    expect((await get(broker, '/health')).status).toBe(200)
  })
})

describe('with tenancy on and the metrics paths listed in JWT_SKIP_PATHS', () => {
  it('serves anonymous callers, as the operator asked', async () => {
    const broker = await brokerWith('metrics-tenancy-listed', {
      ...JWT,
      QUEEN_TENANCY_HEADER: HEADER,
      JWT_SKIP_PATHS: '/health,/metrics,/metrics/prometheus',
    })
    try {
      for (const path of METRICS) expect((await get(broker, path)).status, path).toBe(200)
      expect((await get(broker, '/metrics/prometheus')).body).toContain('queue="secret-q"')
    } finally {
      await broker.close()
    }
  })
})

describe('with tenancy off', () => {
  it('keeps the documented default: the metrics paths are public', async () => {
    const broker = await brokerWith('metrics-single', JWT)
    try {
      for (const path of METRICS) expect((await get(broker, path)).status, path).toBe(200)
      expect((await get(broker, '/api/v1/resources/queues')).status).toBe(401)
    } finally {
      await broker.close()
    }
  })
})
