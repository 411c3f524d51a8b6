import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { http, startTestBroker, type TestBroker } from '../../support/broker.js'
import { push } from '../../support/queen.js'

let broker: TestBroker
beforeAll(async () => {
  broker = await startTestBroker({ label: 'messages_traces' })
})
afterAll(async () => {
  await broker.close()
})

async function trace(partitionId: string, transactionId: string, fields: Record<string, unknown>): Promise<string> {
  const response = await http(broker, 'POST', '/api/v1/traces', { partitionId, transactionId, ...fields })
  expect(response.body.success, JSON.stringify(response.body)).toBe(true)
  return response.body.traceId
}

describe('trace reads (docs/http-api.md, "Read traces")', () => {
  let partitionId: string
  let otherPartitionId: string
  const ids: string[] = []
  beforeAll(async () => {
    const pushed = await push(broker, [
      { queue: 'traced.orders', partition: 'eu', payload: { order: 1 }, transactionId: 'order-1' },
      { queue: 'traced.orders', partition: 'eu', payload: { order: 2 }, transactionId: 'order-2' },
      { queue: 'traced.mail', partition: 'Default', payload: { to: 'x' }, transactionId: 'mail-1' },
    ])
    partitionId = pushed[0].partition_id
    otherPartitionId = pushed[2].partition_id
    ids.push(await trace(partitionId, 'order-1', { data: { step: 'received' }, traceNames: ['checkout', 'eu'] }))
    ids.push(
      await trace(partitionId, 'order-1', {
        data: { step: 'paid' },
        eventType: 'step',
        consumerGroup: 'billing',
        workerId: 'w-7',
        traceNames: 'checkout',
      }),
    )
    ids.push(await trace(partitionId, 'order-2', { data: { step: 'received' }, traceNames: ['checkout'] }))
    ids.push(await trace(otherPartitionId, 'mail-1', { data: { sent: true }, traceNames: ['mail'] }))
  })

  it('lists the traces of one message oldest first with snake_case keys', async () => {
    const response = await http(broker, 'GET', `/api/v1/traces/${partitionId}/order-1`)
    expect(response.status).toBe(200)
    expect(response.body).toEqual({
      traces: [
        {
          id: ids[0],
          event_type: 'info',
          data: { step: 'received' },
          consumer_group: '__QUEUE_MODE__',
          worker_id: null,
          created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
          trace_names: ['checkout', 'eu'],
        },
        {
          id: ids[1],
          event_type: 'step',
          data: { step: 'paid' },
          consumer_group: 'billing',
          worker_id: 'w-7',
          created_at: expect.any(String),
          trace_names: ['checkout'],
        },
      ],
    })
    const none = await http(broker, 'GET', `/api/v1/traces/${partitionId}/no-such-message`)
    expect(none.body).toEqual({ traces: [] })
  })

  it('lists the traces carrying a name, newest first, with the message payload, total and pagination', async () => {
    const response = await http(broker, 'GET', '/api/v1/traces/by-name/checkout')
    expect(response.status).toBe(200)
    expect(response.body.total).toBe(3)
    expect(response.body.pagination).toEqual({ limit: 100, offset: 0 })
    expect(response.body.traces.map((t: any) => t.id)).toEqual([ids[2], ids[1], ids[0]])
    expect(Object.keys(response.body.traces[0]).sort()).toEqual(
      [
        'consumer_group',
        'created_at',
        'data',
        'event_type',
        'id',
        'message_payload',
        'partition_id',
        'partition_name',
        'queue_name',
        'trace_names',
        'transaction_id',
        'worker_id',
      ].sort(),
    )
    expect(response.body.traces[1]).toMatchObject({
      transaction_id: 'order-1',
      partition_id: partitionId,
      queue_name: 'traced.orders',
      partition_name: 'eu',
      message_payload: { order: 1 },
      trace_names: ['checkout'],
    })
    const page = await http(broker, 'GET', '/api/v1/traces/by-name/checkout?limit=1&offset=1')
    expect(page.body.traces.map((t: any) => t.id)).toEqual([ids[1]])
    expect(page.body).toMatchObject({ total: 3, pagination: { limit: 1, offset: 1 } })
    const unknown = await http(broker, 'GET', '/api/v1/traces/by-name/never-used')
    expect(unknown.body).toEqual({ traces: [], total: 0, pagination: { limit: 100, offset: 0 } })
  })

  it('lists trace names with event and message counts, most recently seen first', async () => {
    const response = await http(broker, 'GET', '/api/v1/traces/names')
    expect(response.status).toBe(200)
    expect(response.body).toEqual({
      trace_names: [
        { trace_name: 'mail', trace_count: 1, message_count: 1, last_seen: expect.stringMatching(/Z$/) },
        { trace_name: 'checkout', trace_count: 3, message_count: 2, last_seen: expect.stringMatching(/Z$/) },
        { trace_name: 'eu', trace_count: 1, message_count: 1, last_seen: expect.stringMatching(/Z$/) },
      ],
      total: 3,
      pagination: { limit: 50, offset: 0 },
    })
    const page = await http(broker, 'GET', '/api/v1/traces/names?limit=1&offset=2')
    expect(page.body.trace_names.map((n: any) => n.trace_name)).toEqual(['eu'])
  })

  it('answers message_payload null when the message row is gone', async () => {
    const [pushed] = await push(broker, [{ queue: 'traced.gone', payload: { v: 1 }, transactionId: 'gone-1' }])
    await trace(pushed.partition_id, 'gone-1', { data: {}, traceNames: ['gone'] })
    expect((await http(broker, 'GET', '/api/v1/traces/by-name/gone')).body.traces[0].message_payload).toEqual({ v: 1 })
    await broker.db.query('DELETE FROM queen.messages WHERE partition_id = $1', [pushed.partition_id])
    const orphan = await http(broker, 'GET', '/api/v1/traces/by-name/gone')
    expect(orphan.body.traces[0].message_payload).toBeNull()
  })

  it('forgets the traces of a deleted message', async () => {
    const [pushed] = await push(broker, [{ queue: 'traced.deleted', payload: {}, transactionId: 'del-1' }])
    await trace(pushed.partition_id, 'del-1', { data: {}, traceNames: ['deleted-flow'] })
    await http(broker, 'DELETE', `/api/v1/messages/${pushed.partition_id}/del-1`)
    expect((await http(broker, 'GET', `/api/v1/traces/${pushed.partition_id}/del-1`)).body).toEqual({ traces: [] })
    expect((await http(broker, 'GET', '/api/v1/traces/by-name/deleted-flow')).body.total).toBe(0)
  })

  it.each([
    ['/api/v1/traces/not-a-uuid/order-1', 'partitionId: must be a UUID'],
    ['/api/v1/traces/by-name/checkout?limit=0', 'limit: must be between 1 and 1000'],
    ['/api/v1/traces/by-name/checkout?offset=x', 'offset: must be an integer'],
    ['/api/v1/traces/names?limit=1001', 'limit: must be between 1 and 1000'],
    ['/api/v1/traces/names?limit=1&limit=2', 'limit: must be given once'],
  ])('answers 400 to %s', async (path, error) => {
    const response = await http(broker, 'GET', path)
    expect(response.status).toBe(400)
    expect(response.body).toEqual({ error, code: 'QUEEN_ERR_VALIDATION' })
  })
})
