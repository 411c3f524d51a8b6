import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { http, startTestBroker, type TestBroker } from '../../support/broker.js'
import { ack, configure, numbers, pop, push, pushMany, sleep } from '../../support/queen.js'

let broker: TestBroker
beforeAll(async () => {
  broker = await startTestBroker({ label: 'streams' })
})
afterAll(async () => {
  await broker.close()
})

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const UNKNOWN_ID = '0190b3c6-4f1c-7a3e-9b2d-1c2d3e4f5a6b'

async function register(body: Record<string, unknown>) {
  return http(broker, 'POST', '/streams/v1/queries', body)
}

async function registerQuery(name: string, source: string, sink?: string): Promise<string> {
  const response = await register({ name, source_queue: source, sink_queue: sink, config_hash: 'h1' })
  expect(response.status, JSON.stringify(response.body)).toBe(200)
  return response.body.query_id
}

async function cycle(body: Record<string, unknown>) {
  const response = await http(broker, 'POST', '/streams/v1/cycle', body)
  expect(response.status, JSON.stringify(response.body)).toBe(200)
  return response.body
}

async function state(body: Record<string, unknown>) {
  return http(broker, 'POST', '/streams/v1/state/get', body)
}

async function stateRows(queryId: string, partitionId: string, filters: Record<string, unknown> = {}) {
  const response = await state({ query_id: queryId, partition_id: partitionId, ...filters })
  expect(response.status, JSON.stringify(response.body)).toBe(200)
  expect(response.body.success).toBe(true)
  return response.body.rows as { key: string; value: unknown; updated_at: string }[]
}

async function messageCount(queue: string): Promise<number> {
  const rows = await broker.db.query(
    `SELECT count(*)::int AS n FROM queen.messages m JOIN queen.partitions p ON p.id = m.partition_id
     JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = $1`,
    [queue],
  )
  return rows.rows[0].n
}

async function consumerRow(partitionId: string, group = '__QUEUE_MODE__') {
  const rows = await broker.db.query(
    `SELECT lease_id, lease_expires_at::text AS lease_expires_at, lease_to, cursor_position
     FROM queen.consumers WHERE partition_id = $1 AND consumer_group = $2`,
    [partitionId, group],
  )
  return rows.rows[0]
}

describe('POST /streams/v1/queries', () => {
  it('registers a query fresh, re-registers it with the same hash, and refuses another hash with 409', async () => {
    const first = await register({ name: 'q-register', source_queue: 'sq-register', config_hash: 'hash-a' })
    expect(first.status).toBe(200)
    expect(first.body).toEqual({
      success: true,
      query_id: expect.stringMatching(UUID),
      name: 'q-register',
      config_hash: 'hash-a',
      fresh: true,
      reset: false,
    })
    const queryId = first.body.query_id

    const again = await register({
      name: 'q-register',
      source_queue: 'sq-register',
      sink_queue: 'sq-register-out',
      config_hash: 'hash-a',
    })
    expect(again.body).toEqual({
      success: true,
      query_id: queryId,
      name: 'q-register',
      config_hash: 'hash-a',
      fresh: false,
      reset: false,
    })

    const mismatch = await register({ name: 'q-register', source_queue: 'sq-register', config_hash: 'hash-b' })
    expect(mismatch.status).toBe(409)
    expect(mismatch.body).toEqual({
      success: false,
      query_id: queryId,
      name: 'q-register',
      error: expect.stringMatching(/^config_hash mismatch: .*Pass reset:true to discard the stored state$/),
    })
    expect(mismatch.body.error).toContain('hash-a')
    expect(mismatch.body.error).toContain('hash-b')
    const stored = await broker.db.query('SELECT config_hash, sink_queue FROM queen.stream_queries WHERE id = $1', [
      queryId,
    ])
    expect(stored.rows).toEqual([{ config_hash: 'hash-a', sink_queue: 'sq-register-out' }])
  })

  it('reset:true discards the stored state and re-registers with the new hash', async () => {
    const queryId = (await register({ name: 'q-reset', source_queue: 'sq-reset', config_hash: 'v1' })).body.query_id
    const partitionId = '0190b3c6-0000-7000-8000-000000000001'
    await cycle({
      query_id: queryId,
      partition_id: partitionId,
      state_ops: [{ type: 'upsert', key: 'count', value: 3 }],
    })
    expect(await stateRows(queryId, partitionId)).toHaveLength(1)

    // A 409 changes nothing.
    expect((await register({ name: 'q-reset', source_queue: 'sq-reset', config_hash: 'v2' })).status).toBe(409)
    expect(await stateRows(queryId, partitionId)).toHaveLength(1)

    const reset = await register({ name: 'q-reset', source_queue: 'sq-reset', config_hash: 'v2', reset: true })
    expect(reset.status).toBe(200)
    expect(reset.body).toEqual({
      success: true,
      query_id: queryId,
      name: 'q-reset',
      config_hash: 'v2',
      fresh: false,
      reset: true,
    })
    expect(await stateRows(queryId, partitionId)).toEqual([])
    expect((await register({ name: 'q-reset', source_queue: 'sq-reset', config_hash: 'v2' })).body.fresh).toBe(false)
    expect((await register({ name: 'q-reset', source_queue: 'sq-reset', config_hash: 'v1' })).status).toBe(409)
  })

  it('answers 400 with the texts of the contract for missing fields and a non-object body', async () => {
    const cases: [unknown, string][] = [
      [undefined, 'name is required'],
      [{ source_queue: 'q', config_hash: 'h' }, 'name is required'],
      [{ name: '', source_queue: 'q', config_hash: 'h' }, 'name is required'],
      [{ name: 'n', config_hash: 'h' }, 'source_queue is required'],
      [{ name: 'n', source_queue: 'q' }, 'config_hash is required'],
      [[1, 2], 'request body must be a JSON object'],
      ['"text"', 'request body must be a JSON object'],
    ]
    for (const [body, error] of cases) {
      const response = await http(broker, 'POST', '/streams/v1/queries', body)
      expect(response.status, JSON.stringify(body)).toBe(400)
      expect(response.body.error).toBe(error)
    }
    const badReset = await register({ name: 'n', source_queue: 'q', config_hash: 'h', reset: 'yes' })
    expect(badReset.status).toBe(400)
    expect(badReset.body.error).toBe('reset: must be a boolean')
    const badQueue = await register({ name: 'n', source_queue: 'has space', config_hash: 'h' })
    expect(badQueue.status).toBe(400)
    expect(badQueue.body.error).toMatch(/^source_queue: /)
    expect(await broker.db.query("SELECT 1 FROM queen.stream_queries WHERE name = 'n'")).toMatchObject({ rowCount: 0 })
  })
})

describe('POST /streams/v1/cycle', () => {
  it('applies state, sink pushes and the source ack together, and a resend applies nothing twice', async () => {
    const queryId = await registerQuery('q-cycle', 'sc-src', 'sc-sink')
    await pushMany(broker, 'sc-src', 'p1', 2)
    const popped = await pop(broker, 'sc-src', { batch: 2 })
    const [, second] = popped.messages
    const partitionId = popped.partitionId
    const request = {
      query_id: queryId,
      partition_id: partitionId,
      state_ops: [
        { type: 'upsert', key: 'total', value: { sum: 1 } },
        { type: 'upsert', key: 'tmp', value: 'x' },
        { type: 'upsert', key: 'total', value: { sum: 2 } },
        { type: 'delete', key: 'tmp' },
      ],
      push_items: [{ queue: 'sc-sink', partition: 'out', payload: { sum: 2 }, transactionId: 'sum-p1-2' }],
      ack: { transactionId: second.transactionId, leaseId: popped.leaseId, count: 2 },
    }
    const body = await cycle(request)
    expect(body).toEqual({
      success: true,
      query_id: queryId,
      partition_id: partitionId,
      queueName: 'sc-src',
      state_ops_applied: 4,
      push_results: [
        {
          index: 0,
          transaction_id: 'sum-p1-2',
          status: 'queued',
          message_id: expect.stringMatching(UUID),
          partition_id: expect.stringMatching(UUID),
          trace_id: null,
          queueName: 'sc-sink',
        },
      ],
      ack_result: { success: true, count: 2, lease_released: true, dlq: false },
    })

    const rows = await stateRows(queryId, partitionId)
    expect(rows.map(({ key, value }) => ({ key, value }))).toEqual([{ key: 'total', value: { sum: 2 } }])
    const sink = await pop(broker, 'sc-sink')
    expect(sink.messages.map((message: any) => message.data)).toEqual([{ sum: 2 }])
    expect(sink.messages[0].transactionId).toBe('sum-p1-2')
    // Both source messages are settled and the lease is gone.
    expect(await consumerRow(partitionId)).toMatchObject({ lease_id: null, cursor_position: 2 })
    expect((await pop(broker, 'sc-src')).messages).toEqual([])
    expect(second.transactionId).toBeDefined()

    // The answer was lost: the resend succeeds, the push is a duplicate and the acks are no-ops.
    const resend = await cycle(request)
    expect(resend).toMatchObject({ success: true, ack_result: { success: true, count: 2, dlq: false } })
    expect(resend.push_results[0]).toMatchObject({ status: 'duplicate', message_id: body.push_results[0].message_id })
    expect(await messageCount('sc-sink')).toBe(1)
    expect(await consumerRow(partitionId)).toMatchObject({ lease_id: null, cursor_position: 2 })
  })

  it('rolls back state, sink and source when a sink push fails', async () => {
    const queryId = await registerQuery('q-full', 'sf-src', 'sf-sink')
    await configure(broker, 'sf-sink', { maxSize: 1 })
    await push(broker, [{ queue: 'sf-sink', payload: 'occupant' }])
    await configure(broker, 'sf-src', { leaseTime: 1 })
    await pushMany(broker, 'sf-src', 'p', 1)
    const popped = await pop(broker, 'sf-src')
    const message = popped.messages[0]
    const partitionId = popped.partitionId
    await cycle({ query_id: queryId, partition_id: partitionId, state_ops: [{ type: 'upsert', key: 'k', value: 1 }] })
    const before = await stateRows(queryId, partitionId)

    const body = await cycle({
      query_id: queryId,
      partition_id: partitionId,
      state_ops: [
        { type: 'upsert', key: 'k', value: 2 },
        { type: 'upsert', key: 'new', value: true },
      ],
      push_items: [
        { queue: 'sf-other', payload: 'fits' },
        { queue: 'sf-sink', payload: 'overflow' },
      ],
      ack: { transactionId: message.transactionId, leaseId: popped.leaseId },
    })
    expect(body).toEqual({
      success: false,
      error: "push_items[1] failed: queue 'sf-sink' is full (maxSize 1)",
      query_id: queryId,
      partition_id: partitionId,
      queueName: 'sf-src',
      state_ops_applied: 0,
      push_results: [],
      ack_result: null,
    })
    expect(await stateRows(queryId, partitionId)).toEqual(before)
    expect(await messageCount('sf-sink')).toBe(1)
    expect(await messageCount('sf-other')).toBe(0)
    // The source message is still leased and unacked...
    expect(await consumerRow(partitionId)).toMatchObject({ lease_id: popped.leaseId, cursor_position: 0 })
    expect((await pop(broker, 'sf-src')).messages).toEqual([])
    // ...and is delivered again once the lease ends.
    await sleep(1200)
    const again = await pop(broker, 'sf-src')
    expect(again.messages).toHaveLength(1)
    expect(again.messages[0]).toMatchObject({ transactionId: message.transactionId, retryCount: 1 })
  })

  it('fails a cycle whose ack names a stale lease, and changes nothing', async () => {
    const queryId = await registerQuery('q-stale', 'ss-src', 'ss-sink')
    await configure(broker, 'ss-src', { leaseTime: 1 })
    await pushMany(broker, 'ss-src', 'p', 1)
    const stale = await pop(broker, 'ss-src')
    await sleep(1200)
    const current = await pop(broker, 'ss-src')
    expect(current.leaseId).not.toBe(stale.leaseId)
    const partitionId = current.partitionId

    const body = await cycle({
      query_id: queryId,
      partition_id: partitionId,
      state_ops: [{ type: 'upsert', key: 'k', value: 1 }],
      push_items: [{ queue: 'ss-sink', payload: 1 }],
      ack: { transactionId: stale.messages[0].transactionId, leaseId: stale.leaseId },
    })
    expect(body).toMatchObject({
      success: false,
      error: 'ack failed: Invalid or expired lease',
      state_ops_applied: 0,
      push_results: [],
      ack_result: null,
    })
    expect(await stateRows(queryId, partitionId)).toEqual([])
    expect(await messageCount('ss-sink')).toBe(0)
    expect(await consumerRow(partitionId)).toMatchObject({ lease_id: current.leaseId, cursor_position: 0 })
    // The current holder can still settle it.
    expect(await ack(broker, current.messages[0])).toMatchObject({ success: true, leaseReleased: true })
  })

  it('keeps the source lease with release_lease:false until it expires', async () => {
    const queryId = await registerQuery('q-keep', 'sk-src')
    const group = `streams.${queryId}`
    await configure(broker, 'sk-src', { leaseTime: 2 })
    await pushMany(broker, 'sk-src', 'p', 2)
    const popped = await pop(broker, 'sk-src', { batch: 2, consumerGroup: group })
    const partitionId = popped.partitionId
    const leaseBefore = await consumerRow(partitionId, group)

    const body = await cycle({
      query_id: queryId,
      partition_id: partitionId,
      consumer_group: group,
      ack: { transactionId: popped.messages[1].transactionId, leaseId: popped.leaseId, count: 2 },
      release_lease: false,
    })
    expect(body).toMatchObject({ success: true, ack_result: { success: true, count: 2, lease_released: false } })
    // Both messages settled, the same lease still held with its expiry unchanged.
    expect(await consumerRow(partitionId, group)).toEqual({ ...leaseBefore, cursor_position: 2 })

    await pushMany(broker, 'sk-src', 'p', 1, 2)
    expect(await pop(broker, 'sk-src', { consumerGroup: group }, 'p')).toMatchObject({
      success: false,
      error: 'lease_held',
    })
    expect((await pop(broker, 'sk-src', { consumerGroup: group })).messages).toEqual([])
    // An ack with the original lease id still works (the message is settled: a no-op).
    expect(await ack(broker, popped.messages[1])).toMatchObject({ success: true, error: null, alreadyAcked: true })

    // Once the lease ends the next message is delivered; the settled ones are not, and no failure counted.
    await sleep(2100)
    const next = await pop(broker, 'sk-src', { consumerGroup: group, batch: 5 })
    expect(numbers(next)).toEqual([2])
    expect(next.messages[0].retryCount).toBe(0)
  })

  it('keeps a partially acked lease usable, and a later cycle with release_lease:true releases a kept lease', async () => {
    const queryId = await registerQuery('q-partial', 'sp-src')
    await pushMany(broker, 'sp-src', 'p', 3)
    const popped = await pop(broker, 'sp-src', { batch: 3 })
    const [m0, m1, m2] = popped.messages
    const partitionId = popped.partitionId

    const partial = await cycle({
      query_id: queryId,
      partition_id: partitionId,
      ack: { transactionId: m0.transactionId, leaseId: popped.leaseId },
      release_lease: false,
    })
    expect(partial.ack_result).toEqual({ success: true, count: 1, lease_released: false, dlq: false })
    expect(await ack(broker, m1)).toMatchObject({ success: true, alreadyAcked: false, leaseReleased: false })

    const last = await cycle({
      query_id: queryId,
      partition_id: partitionId,
      ack: { transactionId: m2.transactionId, leaseId: popped.leaseId },
      release_lease: false,
    })
    expect(last.ack_result).toEqual({ success: true, count: 1, lease_released: false, dlq: false })
    expect(await consumerRow(partitionId)).toMatchObject({ lease_id: popped.leaseId, cursor_position: 3 })
    await pushMany(broker, 'sp-src', 'p', 1, 3)
    expect((await pop(broker, 'sp-src')).messages).toEqual([])

    // The resend of the last cycle with release_lease:true gives the kept lease up.
    const release = await cycle({
      query_id: queryId,
      partition_id: partitionId,
      ack: { transactionId: m2.transactionId, leaseId: popped.leaseId },
    })
    expect(release.ack_result).toEqual({ success: true, count: 1, lease_released: true, dlq: false })
    expect(numbers(await pop(broker, 'sp-src'))).toEqual([3])
  })

  it('settles the count messages ending at the named one, as the streams SDK acks its batch', async () => {
    const queryId = await registerQuery('q-count', 'sn-src')
    const group = `streams.${queryId}`
    await pushMany(broker, 'sn-src', 'p', 5)
    const popped = await pop(broker, 'sn-src', { batch: 5, consumerGroup: group })
    expect(numbers(popped)).toEqual([0, 1, 2, 3, 4])
    // A gate allowed the first 3: the SDK acks the third with count 3 and keeps the lease.
    const partial = await cycle({
      query_id: queryId,
      partition_id: popped.partitionId,
      consumer_group: group,
      ack: { transactionId: popped.messages[2].transactionId, leaseId: popped.leaseId, count: 3 },
      release_lease: false,
    })
    expect(partial).toMatchObject({ success: true, ack_result: { success: true, count: 3, lease_released: false } })
    expect(await consumerRow(popped.partitionId, group)).toMatchObject({ lease_id: popped.leaseId, cursor_position: 3 })
    // The next cycle names the last message with the whole batch's size: the 2 left are settled, the
    // 3 settled before are no-ops, and nothing past the named message is touched.
    await pushMany(broker, 'sn-src', 'p', 1, 5)
    const whole = await cycle({
      query_id: queryId,
      partition_id: popped.partitionId,
      consumer_group: group,
      ack: { transactionId: popped.messages[4].transactionId, leaseId: popped.leaseId, count: 5 },
    })
    expect(whole).toMatchObject({ success: true, ack_result: { success: true, count: 5, lease_released: true } })
    expect(await consumerRow(popped.partitionId, group)).toMatchObject({ lease_id: null, cursor_position: 5 })
    expect(numbers(await pop(broker, 'sn-src', { batch: 5, consumerGroup: group }))).toEqual([5])
  })

  it('acks the messages there are when count exceeds them', async () => {
    const queryId = await registerQuery('q-count-over', 'so-src')
    await pushMany(broker, 'so-src', 'p', 2)
    const popped = await pop(broker, 'so-src', { batch: 2 })
    const body = await cycle({
      query_id: queryId,
      partition_id: popped.partitionId,
      ack: { transactionId: popped.messages[1].transactionId, leaseId: popped.leaseId, count: 3 },
    })
    expect(body).toMatchObject({ success: true, ack_result: { success: true, count: 2, lease_released: true } })
    expect(await consumerRow(popped.partitionId)).toMatchObject({ lease_id: null, cursor_position: 2 })
  })

  it('answers an unknown query with success:false and the usual keys', async () => {
    const body = await cycle({ query_id: UNKNOWN_ID, partition_id: UNKNOWN_ID, state_ops: [] })
    expect(body).toEqual({
      success: false,
      error: `stream query ${UNKNOWN_ID} not found`,
      query_id: UNKNOWN_ID,
      partition_id: UNKNOWN_ID,
      queueName: null,
      state_ops_applied: 0,
      push_results: [],
      ack_result: null,
    })
  })

  it('refuses bad input with 400 before touching anything', async () => {
    const queryId = await registerQuery('q-bad', 'sb-src')
    const base = { query_id: queryId, partition_id: UNKNOWN_ID }
    const cases: [unknown, string][] = [
      [undefined, 'query_id is required'],
      [{ partition_id: UNKNOWN_ID }, 'query_id is required'],
      [{ query_id: queryId }, 'partition_id is required'],
      [{ ...base, partition_id: 'p1' }, 'partition_id: must be a UUID'],
      [[], 'request body must be a JSON object'],
      [{ ...base, state_ops: {} }, 'state_ops: must be an array'],
      [{ ...base, state_ops: [{ type: 'merge', key: 'a' }] }, 'state_ops[0].type: must be upsert or delete'],
      [{ ...base, state_ops: [{ type: 'upsert', value: 1 }] }, 'state_ops[0].key is required'],
      [{ ...base, state_ops: [{ type: 'upsert', key: 'a' }] }, 'state_ops[0].value is required'],
      [{ ...base, push_items: [{ payload: 1 }] }, 'push_items[0].queue: Queue must be a string'],
      [{ ...base, push_items: [{ queue: 'q', traceId: 'nope' }] }, 'push_items[0].traceId: must be a UUID'],
      [{ ...base, ack: { leaseId: UNKNOWN_ID } }, 'ack.transactionId is required'],
      [{ ...base, ack: { transactionId: 't', count: 0 } }, 'ack.count: must be an integer from 1 to 10000'],
      [{ ...base, ack: { transactionId: 't', status: 'done' } }, expect.stringMatching(/^ack\.status: must be one of/)],
      [{ ...base, ack: { transactionId: 't', leaseId: 'x' } }, 'ack.leaseId: must be a UUID'],
      [{ ...base, release_lease: 'no' }, 'release_lease: must be a boolean'],
    ] as [unknown, string][]
    for (const [body, error] of cases) {
      const response = await http(broker, 'POST', '/streams/v1/cycle', body)
      expect(response.status, JSON.stringify(body)).toBe(400)
      expect(response.body.error).toEqual(error)
    }
    expect(await messageCount('q')).toBe(0)
  })

  it('acks in queue mode by default and a named consumer group when given', async () => {
    const queryId = await registerQuery('q-groups', 'sg-src')
    await pushMany(broker, 'sg-src', 'p', 1)
    const queueMode = await pop(broker, 'sg-src')
    const named = await pop(broker, 'sg-src', { consumerGroup: 'g1' })
    const partitionId = queueMode.partitionId
    // The queue-mode lease does not cover the named group's delivery.
    const wrong = await cycle({
      query_id: queryId,
      partition_id: partitionId,
      ack: { transactionId: named.messages[0].transactionId, leaseId: named.leaseId },
    })
    expect(wrong).toMatchObject({ success: false, error: 'ack failed: Invalid or expired lease' })
    const right = await cycle({
      query_id: queryId,
      partition_id: partitionId,
      consumer_group: 'g1',
      ack: { transactionId: named.messages[0].transactionId, leaseId: named.leaseId },
    })
    expect(right).toMatchObject({ success: true, ack_result: { count: 1, lease_released: true } })
    expect(await consumerRow(partitionId, 'g1')).toMatchObject({ cursor_position: 1, lease_id: null })
    expect(await consumerRow(partitionId)).toMatchObject({ cursor_position: 0, lease_id: queueMode.leaseId })
  })
})

describe('POST /streams/v1/state/get', () => {
  it('returns rows sorted by key with updated_at in PostgreSQL JSON form, filtered by keys, prefix and ripeness', async () => {
    const queryId = await registerQuery('q-state', 'sr-src')
    const partitionId = '0190b3c6-0000-7000-8000-0000000000aa'
    const otherPartition = '0190b3c6-0000-7000-8000-0000000000bb'
    await cycle({
      query_id: queryId,
      partition_id: partitionId,
      state_ops: [
        { type: 'upsert', key: 'w:3', value: { windowEnd: 3000 } },
        { type: 'upsert', key: 'w:1', value: { windowEnd: 1000 } },
        { type: 'upsert', key: 'other', value: { n: 1 } },
        { type: 'upsert', key: 'w:2', value: { windowEnd: 2000 } },
        { type: 'upsert', key: 'w:x', value: { windowEnd: 'soon' } },
        { type: 'upsert', key: 'scalar', value: 7 },
      ],
    })
    await cycle({
      query_id: queryId,
      partition_id: otherPartition,
      state_ops: [{ type: 'upsert', key: 'w:1', value: { windowEnd: 1 } }],
    })

    const all = await stateRows(queryId, partitionId)
    expect(all.map((row) => row.key)).toEqual(['other', 'scalar', 'w:1', 'w:2', 'w:3', 'w:x'])
    expect(all[1]).toEqual({ key: 'scalar', value: 7, updated_at: expect.any(String) })
    const stored = await broker.db.query(
      'SELECT updated_at FROM queen.stream_state WHERE query_id = $1 AND partition_id = $2 AND key = $3',
      [queryId, partitionId, 'scalar'],
    )
    for (const row of all) {
      expect(row.updated_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?\+00:00$/)
      expect(new Date(row.updated_at).getTime()).toBe(stored.rows[0].updated_at.getTime())
    }

    const keyed = await stateRows(queryId, partitionId, { keys: ['w:2', 'other', 'missing'] })
    expect(keyed.map((row) => row.key)).toEqual(['other', 'w:2'])
    expect((await stateRows(queryId, partitionId, { keys: [] })).length).toBe(6)
    const prefixed = await stateRows(queryId, partitionId, { key_prefix: 'w:' })
    expect(prefixed.map((row) => row.key)).toEqual(['w:1', 'w:2', 'w:3', 'w:x'])
    const ripe = await stateRows(queryId, partitionId, { ripe_at_or_before: 2000 })
    expect(ripe.map(({ key, value }) => ({ key, value }))).toEqual([
      { key: 'w:1', value: { windowEnd: 1000 } },
      { key: 'w:2', value: { windowEnd: 2000 } },
    ])
    const combined = await stateRows(queryId, partitionId, { keys: ['w:2', 'w:3'], ripe_at_or_before: 5000 })
    expect(combined.map((row) => row.key)).toEqual(['w:2', 'w:3'])
    expect(await stateRows(queryId, otherPartition)).toEqual([
      { key: 'w:1', value: { windowEnd: 1 }, updated_at: expect.any(String) },
    ])
  })

  it('answers 400 with success:false and rows:[] for missing ids and bad filters', async () => {
    const missing = await state({ query_id: UNKNOWN_ID })
    expect(missing.status).toBe(400)
    expect(missing.body).toEqual({ success: false, error: 'query_id and partition_id are required', rows: [] })
    expect((await http(broker, 'POST', '/streams/v1/state/get')).body).toEqual({
      success: false,
      error: 'query_id and partition_id are required',
      rows: [],
    })
    const cases: [Record<string, unknown>, string][] = [
      [{ query_id: 'q', partition_id: UNKNOWN_ID }, 'query_id: must be a UUID'],
      [{ query_id: UNKNOWN_ID, partition_id: UNKNOWN_ID, keys: 'a' }, 'keys: must be an array of strings'],
      [{ query_id: UNKNOWN_ID, partition_id: UNKNOWN_ID, key_prefix: 3 }, 'key_prefix: must be a string'],
      [
        { query_id: UNKNOWN_ID, partition_id: UNKNOWN_ID, ripe_at_or_before: '2000' },
        'ripe_at_or_before: must be a number (epoch milliseconds)',
      ],
    ]
    for (const [body, error] of cases) {
      const response = await state(body)
      expect(response.status, JSON.stringify(body)).toBe(400)
      expect(response.body).toEqual({ success: false, error, rows: [] })
    }
    const unknown = await state({ query_id: UNKNOWN_ID, partition_id: UNKNOWN_ID })
    expect(unknown.status).toBe(200)
    expect(unknown.body).toEqual({ success: false, error: `stream query ${UNKNOWN_ID} not found`, rows: [] })
  })
})

describe('deleting a source queue', () => {
  it('removes the state of its partitions and keeps the query registered', async () => {
    const queryId = await registerQuery('q-delete', 'sd-src')
    await pushMany(broker, 'sd-src', 'p', 1)
    const popped = await pop(broker, 'sd-src')
    const kept = '0190b3c6-0000-7000-8000-0000000000cc'
    await cycle({
      query_id: queryId,
      partition_id: popped.partitionId,
      state_ops: [{ type: 'upsert', key: 'k', value: 1 }],
    })
    await cycle({ query_id: queryId, partition_id: kept, state_ops: [{ type: 'upsert', key: 'k', value: 2 }] })

    const deleted = await http(broker, 'DELETE', '/api/v1/resources/queues/sd-src')
    expect(deleted.status).toBe(200)
    expect(await stateRows(queryId, popped.partitionId)).toEqual([])
    expect(await stateRows(queryId, kept)).toHaveLength(1)
    const again = await register({ name: 'q-delete', source_queue: 'sd-src', config_hash: 'h1' })
    expect(again.body).toMatchObject({ success: true, query_id: queryId, fresh: false })
  })
})
