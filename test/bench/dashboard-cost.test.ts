/**
 * The dashboard-cost bench's pieces (bench/dashboard-poll.ts): its tick is what the overview asks a broker for,
 * every request of it answers a real broker, and the report's table says the cost per queue count.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { costTable, overviewTick } from '../../bench/dashboard-poll.js'
import { http, startTestBroker, type TestBroker } from '../support/broker.js'

let broker: TestBroker
beforeAll(async () => {
  broker = await startTestBroker({ label: 'bench_dashboard_cost' })
})
afterAll(async () => {
  await broker.close()
})

describe("the dashboard-cost bench's overview tick", () => {
  it("asks for the overview's routes over the last hour", () => {
    const now = Date.parse('2026-12-06T10:00:00.000Z')
    const paths = overviewTick(now).map((path) => new URL(path, 'http://x'))
    expect(paths.map((url) => url.pathname)).toEqual([
      '/health',
      '/api/v1/status',
      '/api/v1/status/top',
      '/api/v1/analytics/retention',
      '/api/v1/analytics/system-metrics',
    ])
    expect(paths[1]?.searchParams.get('from')).toBe('2026-12-06T09:00:00.000Z')
    expect(paths[1]?.searchParams.get('to')).toBe('2026-12-06T10:00:00.000Z')
  })

  it('is answered 200 by a broker, every request of it', async () => {
    for (const path of overviewTick(Date.now())) {
      const response = await http(broker, 'GET', path)
      expect(response.status, `${path}: ${JSON.stringify(response.body)}`).toBe(200)
    }
  })
})

describe("the dashboard-cost bench's table", () => {
  it('subtracts the idle broker from the broker with the overview open, per queue count', () => {
    const table = costTable([
      {
        queues: 10,
        polling: false,
        seconds: 10,
        brokerCpuSeconds: 0.1,
        postgresCpuSeconds: 0.2,
        requests: 0,
        answerBytes: 0,
      },
      {
        queues: 10,
        polling: true,
        seconds: 10,
        brokerCpuSeconds: 0.3,
        postgresCpuSeconds: 0.4,
        requests: 25,
        answerBytes: 50_000,
      },
      {
        queues: 1000,
        polling: false,
        seconds: 10,
        brokerCpuSeconds: 0.2,
        postgresCpuSeconds: undefined,
        requests: 0,
        answerBytes: 0,
      },
      {
        queues: 1000,
        polling: true,
        seconds: 10,
        brokerCpuSeconds: 0.45,
        postgresCpuSeconds: undefined,
        requests: 25,
        answerBytes: 500_000,
      },
    ])
    expect(table.split('\n').slice(2)).toEqual([
      '| 10 | 1.00 % | 3.00 % | 2.00 % | 2.00 % → 4.00 % | 10,000 |',
      '| 1,000 | 2.00 % | 4.50 % | 2.50 % | n/a | 100,000 |',
    ])
  })
})
