/**
 * GET /streams/v1/queries (docs/http-api.md, "Streams"): the registered stream queries by name with their state
 * rows and how their group (`streams.<name>`) reads the source queue.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { http, startTestBroker, type TestBroker } from '../../support/broker.js'
import { pop, pushMany } from '../../support/queen.js'

let broker: TestBroker
beforeAll(async () => {
  broker = await startTestBroker({ label: 'stream_queries' })
})
afterAll(async () => {
  await broker.close()
})

async function register(name: string, source: string, sink?: string): Promise<string> {
  const response = await http(broker, 'POST', '/streams/v1/queries', {
    name,
    source_queue: source,
    sink_queue: sink,
    config_hash: `hash-${name}`,
  })
  expect(response.status, JSON.stringify(response.body)).toBe(200)
  return response.body.query_id
}

describe('GET /streams/v1/queries', () => {
  it('answers an empty list before any query is registered', async () => {
    const response = await http(broker, 'GET', '/streams/v1/queries')
    expect(response.status).toBe(200)
    expect(response.body).toEqual({ queries: [] })
  })

  it('lists each query with its state rows and its group on the source', async () => {
    await pushMany(broker, 'sq-clicks', 'p1', 3)
    const counter = await register('click-counter', 'sq-clicks', 'sq-totals')
    await register('audit-tail', 'sq-audit')
    // One cycle of the counter: it takes 2 clicks as its group, acks them and writes two state keys.
    const popped = await pop(broker, 'sq-clicks', { consumerGroup: 'streams.click-counter', batch: 2 })
    expect(popped.messages).toHaveLength(2)
    const last = popped.messages[1]
    const cycle = await http(broker, 'POST', '/streams/v1/cycle', {
      query_id: counter,
      partition_id: popped.partitionId,
      consumer_group: 'streams.click-counter',
      state_ops: [
        { type: 'upsert', key: 'user-1', value: { clicks: 1 } },
        { type: 'upsert', key: 'user-2', value: { clicks: 1 } },
      ],
      push_items: [],
      ack: { transactionId: last.transactionId, leaseId: popped.leaseId, count: 2 },
    })
    expect(cycle.body.success, JSON.stringify(cycle.body)).toBe(true)
    await http(broker, 'POST', '/api/v1/stats/refresh')

    const response = await http(broker, 'GET', '/streams/v1/queries')
    expect(response.status).toBe(200)
    const [audit, clicks] = response.body.queries
    expect(audit).toMatchObject({
      name: 'audit-tail',
      source_queue: 'sq-audit',
      sink_queue: null,
      config_hash: 'hash-audit-tail',
      state_keys: 0,
      state_partitions: 0,
      state_updated_at: null,
      consumer_group: 'streams.audit-tail',
      consumed: 0,
      last_consumed_at: null,
      lag_messages: 0,
    })
    expect(clicks).toMatchObject({
      query_id: counter,
      name: 'click-counter',
      source_queue: 'sq-clicks',
      sink_queue: 'sq-totals',
      state_keys: 2,
      state_partitions: 1,
      consumer_group: 'streams.click-counter',
      consumed: 2,
      lag_messages: 1,
    })
    expect(Date.parse(clicks.last_consumed_at)).not.toBeNaN()
    expect(Date.parse(clicks.state_updated_at)).not.toBeNaN()
  })

  it('refuses a query parameter with a 400 naming it', async () => {
    const response = await http(broker, 'GET', '/streams/v1/queries?name=audit-tail')
    expect(response.status).toBe(400)
    expect(response.body.error).toBe('name: unknown parameter (this route takes none)')
  })
})
