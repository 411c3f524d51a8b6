import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { http, startTestBroker, type TestBroker } from '../../support/broker.js'

let broker: TestBroker
beforeAll(async () => {
  broker = await startTestBroker({ label: 'smoke' })
})
afterAll(async () => {
  await broker.close()
})

describe('smoke', () => {
  it('push pop ack', async () => {
    const push = await http(broker, 'POST', '/api/v1/push', { items: [{ queue: 'q1', payload: { a: 1 } }] })
    expect(push.status).toBe(200)
    expect(push.body[0].status).toBe('queued')
    const pop = await http(broker, 'GET', '/api/v1/pop/queue/q1?batch=10')
    expect(pop.body.messages).toHaveLength(1)
    const m = pop.body.messages[0]
    const ack = await http(broker, 'POST', '/api/v1/ack', {
      transactionId: m.transactionId,
      partitionId: m.partitionId,
      leaseId: m.leaseId,
    })
    expect(ack.body[0]).toMatchObject({ success: true, leaseReleased: true })
    const health = await http(broker, 'GET', '/health')
    expect(health.status).toBe(200)
  })
})
