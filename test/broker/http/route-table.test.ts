import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { http, startTestBroker, type TestBroker } from '../../support/broker.js'

let broker: TestBroker
beforeAll(async () => {
  broker = await startTestBroker({ label: 'routetable' })
})
afterAll(async () => {
  await broker.close()
})

const P = '0190b3c6-4f1c-7a3e-9b2d-1c2d3e4f5a6b'

// Every route of docs/http-api.md, "Route table" (except the dashboard, route 65, in dashboard.test.ts) is served: none answers the
// unknown-route 404. What each answers is tested in the route families' own files.
const ROUTES: [string, string][] = [
  ['POST', '/api/v1/push'],
  ['GET', '/api/v1/pop/queue/q'],
  ['GET', '/api/v1/pop/queue/q/partition/p'],
  ['GET', '/api/v1/pop?namespace=n'],
  ['POST', '/api/v1/ack'],
  ['POST', '/api/v1/ack/batch'],
  ['POST', '/api/v1/transaction'],
  ['POST', `/api/v1/lease/${P}/extend`],
  ['POST', '/api/v1/traces'],
  ['GET', `/api/v1/traces/${P}/tx`],
  ['GET', '/api/v1/traces/by-name/name'],
  ['GET', '/api/v1/traces/names'],
  ['POST', '/api/v1/configure'],
  ['DELETE', '/api/v1/resources/queues/q'],
  ['GET', '/api/v1/resources/queues'],
  ['GET', '/api/v1/resources/queues/q'],
  ['GET', '/api/v1/resources/queues/q/depth'],
  ['GET', '/api/v1/resources/namespaces'],
  ['GET', '/api/v1/resources/tasks'],
  ['GET', '/api/v1/resources/overview'],
  ['DELETE', '/api/v1/queues/q/clear'],
  ['GET', '/api/v1/messages'],
  ['GET', `/api/v1/messages/${P}/tx`],
  ['DELETE', `/api/v1/messages/${P}/tx`],
  ['POST', `/api/v1/messages/${P}/tx/retry`],
  ['POST', `/api/v1/messages/${P}/tx/dlq`],
  ['GET', '/api/v1/dlq'],
  ['GET', '/api/v1/consumer-groups'],
  ['GET', '/api/v1/consumer-groups/lagging'],
  ['GET', '/api/v1/consumer-groups/g'],
  ['DELETE', '/api/v1/consumer-groups/g'],
  ['POST', '/api/v1/consumer-groups/g/subscription'],
  ['DELETE', '/api/v1/consumer-groups/g/queues/q'],
  ['POST', '/api/v1/consumer-groups/g/queues/q/seek'],
  ['POST', '/api/v1/consumer-groups/g/queues/q/partitions/p/seek'],
  ['POST', '/api/v1/stats/refresh'],
  ['GET', '/api/v1/status'],
  ['GET', '/api/v1/status/queues'],
  ['GET', '/api/v1/status/queues/q'],
  ['GET', '/api/v1/status/queues/q/messages'],
  ['GET', '/api/v1/status/analytics'],
  ['GET', '/api/v1/status/buffers'],
  ['GET', '/api/v1/status/top'],
  ['GET', '/api/v1/analytics/system-metrics'],
  ['GET', '/api/v1/analytics/worker-metrics'],
  ['GET', '/api/v1/analytics/postgres-stats'],
  ['GET', '/api/v1/analytics/queue-lag'],
  ['GET', '/api/v1/analytics/queue-ops'],
  ['GET', '/api/v1/analytics/queue-parked-replicas'],
  ['GET', '/api/v1/analytics/retention'],
  ['GET', '/api/v1/system/maintenance'],
  ['POST', '/api/v1/system/maintenance'],
  ['GET', '/api/v1/system/maintenance/pop'],
  ['POST', '/api/v1/system/maintenance/pop'],
  ['GET', '/api/v1/system/shared-state'],
  ['GET', '/api/v1/system/mesh'],
  ['GET', '/health'],
  ['GET', '/health/live'],
  ['GET', '/metrics'],
  ['GET', '/metrics/prometheus'],
  ['POST', '/internal/api/notify'],
  ['GET', '/internal/api/shared-state/stats'],
  ['GET', '/internal/api/inter-instance/stats'],
  ['POST', '/streams/v1/queries'],
  ['POST', '/streams/v1/cycle'],
  ['POST', '/streams/v1/state/get'],
  ['GET', '/streams/v1/queries'],
  // Not in docs/http-api.md's table, but the JS client's Admin.getPartitions calls it.
  ['GET', '/api/v1/resources/partitions'],
]

describe('the route table of docs/http-api.md, "Route table"', () => {
  it.each(ROUTES)('%s %s is served', async (method, path) => {
    const response = await http(broker, method, path, method === 'GET' || method === 'DELETE' ? undefined : {})
    expect(response.status).toBeLessThan(500)
    expect(response.body?.code).not.toBe('QUEEN_ERR_ROUTE_NOT_FOUND')
  })

  it.each([
    ['POST', '/api/v1/migration/start'],
    ['POST', '/api/v1/stream/run'],
    ['OPTIONS', '/api/v1/push'],
  ])('%s %s is not served (docs/http-api.md, "Not served")', async (method, path) => {
    const response = await http(broker, method, path)
    expect(response.status).toBe(404)
  })
})
