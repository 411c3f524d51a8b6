/**
 * GET /api/v1/status/top (docs/http-api.md, "Status and analytics"): the queues with the most pending messages
 * and the groups with the most lag, from the stats snapshot, bounded by `limit`; bad parameters are 400s.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { http, startTestBroker, type TestBroker } from '../../support/broker.js'
import { ackBatch, pop, pushMany } from '../../support/queen.js'

let broker: TestBroker
beforeAll(async () => {
  broker = await startTestBroker({ label: 'status_top' })
})
afterAll(async () => {
  await broker.close()
})

async function refreshStats(): Promise<void> {
  const refreshed = await http(broker, 'POST', '/api/v1/stats/refresh')
  expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200)
}

describe('GET /api/v1/status/top', () => {
  it('answers zeros and empty lists before anything is pushed', async () => {
    const response = await http(broker, 'GET', '/api/v1/status/top')
    expect(response.status).toBe(200)
    expect(response.body).toMatchObject({ queues: 0, partitions: 0, queuesByPending: [], groupsByLag: [] })
  })

  it('ranks queues by pending and groups by lag, as of the snapshot, at most limit of each', async () => {
    await pushMany(broker, 'top-big', 'a', 5)
    await pushMany(broker, 'top-big', 'b', 4)
    await pushMany(broker, 'top-mid', 'Default', 3)
    await pushMany(broker, 'top-small', 'Default', 1)
    // A group that took 2 of top-mid's 3 messages and acked them: lag 1; queue mode on top-big: lag 9.
    const popped = await pop(broker, 'top-mid', { consumerGroup: 'billing', batch: 2 })
    await ackBatch(
      broker,
      popped.messages.map((m: any) => ({ ...m, consumerGroup: 'billing' })),
    )
    await refreshStats()

    const response = await http(broker, 'GET', '/api/v1/status/top?limit=2')
    expect(response.status, JSON.stringify(response.body)).toBe(200)
    const body = response.body
    expect(body.queues).toBe(3)
    expect(body.partitions).toBe(4)
    expect(body.queuesByPending).toEqual([
      { name: 'top-big', namespace: 'top-big', task: '', partitions: 2, total: 9, pending: 9, processing: 0 },
      // top-mid and top-small tie on 1 pending (the group settled 2 of top-mid's 3): by name.
      { name: 'top-mid', namespace: 'top-mid', task: '', partitions: 1, total: 3, pending: 1, processing: 0 },
    ])
    expect(body.groupsByLag.map((g: any) => [g.consumerGroup, g.queueName, g.lagMessages])).toEqual([
      ['billing', 'top-mid', 1],
    ])
    expect(body.statsAge).toBeGreaterThanOrEqual(0)
    expect(Date.parse(body.refreshedAt)).not.toBeNaN()
  })

  it.each([
    ['limit=0', 'limit: must be between 1 and 100'],
    ['limit=101', 'limit: must be between 1 and 100'],
    ['limit=ten', 'limit: must be an integer'],
    ['queue=top-big', 'queue: unknown parameter (known: limit)'],
  ])('refuses ?%s with a 400 naming the parameter', async (query, message) => {
    const response = await http(broker, 'GET', `/api/v1/status/top?${query}`)
    expect(response.status).toBe(400)
    expect(response.body.error).toBe(message)
  })
})
