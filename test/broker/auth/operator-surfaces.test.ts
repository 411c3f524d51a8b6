/**
 * Who may read the operator surfaces (issue 40, docs/security.md).
 *
 * - `/metrics` and `/metrics/prometheus`: their series carry every tenant's and queue's name. Where tenancy
 *   is off the default `JWT_SKIP_PATHS` keeps them public (docs/operations.md, "Skip paths"); where it is on they need
 *   an admin token unless `JWT_SKIP_PATHS` lists them.
 * - The replica-level analytics (`postgres-stats` with other sessions' SQL, `system-metrics` and
 *   `worker-metrics` with every tenant's request counts): admin with JWT on, and refused to a tenant.
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

const OPERATOR_ANALYTICS = [
  '/api/v1/analytics/postgres-stats',
  '/api/v1/analytics/system-metrics',
  '/api/v1/analytics/worker-metrics',
]

describe('the replica-level analytics with JWT and tenancy on', () => {
  let broker: TestBroker
  beforeAll(async () => {
    broker = await brokerWith('analytics-tenancy', { ...JWT, QUEEN_TENANCY_HEADER: HEADER })
  })
  afterAll(async () => {
    await broker.close()
  })

  it('refuse anonymous callers, read-only and read-write tokens, with or without a tenant', async () => {
    for (const path of OPERATOR_ANALYTICS) {
      expect((await get(broker, path)).status, path).toBe(401)
      for (const role of ['read-only', 'read-write']) {
        expect((await get(broker, path, role)).status, `${path} ${role}`).toBe(403)
        const asTenant = await http(broker, 'GET', path, undefined, {
          ...bearer(await hsToken({ role })),
          [HEADER]: 't1',
        })
        expect(asTenant.status, `${path} ${role} as t1`).toBe(403)
      }
    }
  })

  it('refuse an admin token sent for a tenant, and serve it without one', async () => {
    for (const path of OPERATOR_ANALYTICS) {
      const asTenant = await http(broker, 'GET', path, undefined, {
        ...bearer(await hsToken({ role: 'admin' })),
        [HEADER]: 't1',
      })
      expect(asTenant.status, path).toBe(403)
      expect(asTenant.body).toEqual({ error: 'operator-only route', code: 'QUEEN_ERR_FORBIDDEN' })
      expect((await get(broker, path, 'admin')).status, path).toBe(200)
    }
    expect((await get(broker, '/api/v1/analytics/postgres-stats', 'admin')).body).toHaveProperty('activeQueries')
  })
})

describe('the replica-level analytics with JWT on and one tenant', () => {
  it('are admin routes: read-only and read-write tokens get 403', async () => {
    const broker = await brokerWith('analytics-single', JWT)
    try {
      for (const path of OPERATOR_ANALYTICS) {
        for (const role of ['read-only', 'read-write']) {
          const answer = await get(broker, path, role)
          expect(answer.status, `${path} ${role}`).toBe(403)
          expect(answer.body).toEqual({ error: 'Insufficient permissions', code: 'QUEEN_ERR_FORBIDDEN' })
        }
        expect((await get(broker, path, 'admin')).status, path).toBe(200)
      }
    } finally {
      await broker.close()
    }
  })
})
