import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { http, startTestBroker, type TestBroker } from '../../support/broker.js'
import { ack, ackBatch, configure, numbers, pop, pushMany, sleep } from '../../support/queen.js'

let broker: TestBroker
beforeAll(async () => {
  broker = await startTestBroker({ label: 'ack' })
})
afterAll(async () => {
  await broker.close()
})

async function consumerRow(queue: string, group = '__QUEUE_MODE__') {
  const rows = await broker.db.query(
    `SELECT c.cursor_position, c.lease_id, c.total_consumed FROM queen.consumers c
     JOIN queen.queues q ON q.id = c.queue_id WHERE q.name = $1 AND c.consumer_group = $2`,
    [queue, group],
  )
  return rows.rows[0]
}

describe('POST /api/v1/ack', () => {
  it('answers a one-element array with the fields of docs/http-api.md, "Ack result" and releases the lease on the last ack', async () => {
    await pushMany(broker, 'ack-shape', 'p', 2)
    const body = await pop(broker, 'ack-shape', { batch: 10 })
    const first = await ack(broker, body.messages[0])
    expect(Object.keys(first).sort()).toEqual(
      [
        'alreadyAcked',
        'dlq',
        'error',
        'index',
        'leaseReleased',
        'partitionName',
        'queueName',
        'success',
        'transactionId',
      ].sort(),
    )
    expect(first).toMatchObject({
      index: 0,
      success: true,
      error: null,
      queueName: 'ack-shape',
      partitionName: 'p',
      leaseReleased: false,
      dlq: false,
      alreadyAcked: false,
    })
    const second = await ack(broker, body.messages[1])
    expect(second.leaseReleased).toBe(true)
    expect(await consumerRow('ack-shape')).toMatchObject({ cursor_position: 2, lease_id: null, total_consumed: 2 })
  })

  it('refuses an ack with a stale lease id and changes nothing', async () => {
    await configure(broker, 'stale', { leaseTime: 1 })
    await pushMany(broker, 'stale', 'p', 1)
    const a = await pop(broker, 'stale')
    await sleep(1200)
    // The lease expired; consumer B gets the redelivery under a new lease.
    const b = await pop(broker, 'stale')
    expect(b.messages[0].transactionId).toBe(a.messages[0].transactionId)
    expect(b.messages[0].retryCount).toBe(1)
    const before = await consumerRow('stale')
    const stale = await ack(broker, a.messages[0])
    expect(stale).toMatchObject({ success: false, error: 'Invalid or expired lease', leaseReleased: null })
    expect(await consumerRow('stale')).toEqual(before)
    // B's ack succeeds.
    expect((await ack(broker, b.messages[0])).success).toBe(true)
    expect((await consumerRow('stale')).cursor_position).toBe(1)
  })

  it('answers Message not in flight to an ack without lease of a message nobody holds, and Message not found to an unknown one', async () => {
    await pushMany(broker, 'not-in-flight', 'p', 1)
    const body = await pop(broker, 'not-in-flight')
    await http(broker, 'POST', `/api/v1/lease/${body.leaseId}/extend`, { seconds: 1 })
    const message = body.messages[0]
    const unknown = await ack(broker, { ...message, transactionId: 'no-such-message' })
    expect(unknown).toMatchObject({ success: false, error: 'Message not found' })
    // Without a lease id an ack applies while some live lease covers the message.
    expect((await ack(broker, { ...message, leaseId: undefined })).success).toBe(true)
    await pushMany(broker, 'not-in-flight', 'p', 1, 1)
    const next = await pop(broker, 'not-in-flight')
    await ack(broker, next.messages[0], { status: 'retry' })
    const notHeld = await ack(broker, { ...next.messages[0], leaseId: undefined })
    expect(notHeld).toMatchObject({ success: false, error: 'Message not in flight' })
  })

  it('answers alreadyAcked to a second ack of the same message and counts it once', async () => {
    await pushMany(broker, 'double', 'p', 2)
    const body = await pop(broker, 'double', { batch: 2 })
    const [one, two] = await Promise.all([ack(broker, body.messages[0]), ack(broker, body.messages[0])])
    expect([one.alreadyAcked, two.alreadyAcked].sort()).toEqual([false, true])
    expect(one.success && two.success).toBe(true)
    const again = await ack(broker, body.messages[0])
    expect(again).toMatchObject({ success: true, alreadyAcked: true, leaseReleased: null })
    expect((await consumerRow('double')).total_consumed).toBe(1)
  })

  it('moves the cursor only over contiguously settled messages and never backwards', async () => {
    await configure(broker, 'contiguous', { leaseTime: 1 })
    await pushMany(broker, 'contiguous', 'p', 4)
    const body = await pop(broker, 'contiguous', { batch: 4 })
    await ack(broker, body.messages[3])
    await ack(broker, body.messages[1])
    expect((await consumerRow('contiguous')).cursor_position).toBe(0)
    await ack(broker, body.messages[0])
    expect((await consumerRow('contiguous')).cursor_position).toBe(2)
    // The lease expires with message 2 (n=2) open: only it is redelivered, not the settled n=3.
    await sleep(1200)
    const redelivered = await pop(broker, 'contiguous', { batch: 10 })
    expect(numbers(redelivered)).toEqual([2])
    await ack(broker, redelivered.messages[0])
    expect((await consumerRow('contiguous')).cursor_position).toBe(4)
    // A late ack of an old message does not rewind.
    expect((await ack(broker, body.messages[0])).alreadyAcked).toBe(true)
    expect((await consumerRow('contiguous')).cursor_position).toBe(4)
  })

  it('redelivers a failed message after retryDelay with retryCount raised, and only that message', async () => {
    await configure(broker, 'nack', { retryDelay: 300 })
    await pushMany(broker, 'nack', 'p', 3)
    const body = await pop(broker, 'nack', { batch: 3 })
    const results = await http(broker, 'POST', '/api/v1/ack/batch', {
      acknowledgments: [
        {
          transactionId: body.messages[0].transactionId,
          partitionId: body.partitionId,
          leaseId: body.leaseId,
          status: 'completed',
        },
        {
          transactionId: body.messages[1].transactionId,
          partitionId: body.partitionId,
          leaseId: body.leaseId,
          status: 'failed',
          error: 'boom',
        },
        {
          transactionId: body.messages[2].transactionId,
          partitionId: body.partitionId,
          leaseId: body.leaseId,
          status: 'completed',
        },
      ],
    })
    expect(results.body.map((item: any) => [item.success, item.leaseReleased])).toEqual([
      [true, false],
      [true, false],
      [true, true],
    ])
    // Inside retryDelay the partition is held for the group (order).
    expect((await pop(broker, 'nack')).messages).toEqual([])
    await sleep(400)
    const retried = await pop(broker, 'nack', { batch: 10 })
    expect(numbers(retried)).toEqual([1])
    expect(retried.messages[0].retryCount).toBe(1)
    await ack(broker, retried.messages[0])
    expect((await consumerRow('nack')).cursor_position).toBe(3)
  })

  it('dead-letters a failing message on the failure that exceeds retryLimit (retryLimit + 1 deliveries)', async () => {
    await configure(broker, 'poison', { retryLimit: 2, retryDelay: 0 })
    await pushMany(broker, 'poison', 'p', 2)
    const deliveries: number[] = []
    let dlq = false
    for (let attempt = 0; attempt < 5 && !dlq; attempt++) {
      const body = await pop(broker, 'poison')
      expect(numbers(body)).toEqual([0])
      deliveries.push(body.messages[0].retryCount)
      const result = await ack(broker, body.messages[0], { status: 'failed', error: `attempt ${attempt}` })
      dlq = result.dlq
    }
    expect(dlq).toBe(true)
    expect(deliveries).toEqual([0, 1, 2])
    // The next message flows; the poison one is in the DLQ with its last error and its failure count.
    expect(numbers(await pop(broker, 'poison'))).toEqual([1])
    const listed = await http(broker, 'GET', '/api/v1/dlq?queue=poison')
    expect(listed.body.total).toBe(1)
    expect(listed.body.messages[0]).toMatchObject({
      errorMessage: 'attempt 2',
      retryCount: 3,
      data: { n: 0 },
      consumerGroup: '__QUEUE_MODE__',
    })
  })

  it('counts an expired lease as a failure, so a message that kills its consumer reaches the DLQ', async () => {
    await configure(broker, 'crashy', { leaseTime: 1, retryLimit: 1 })
    await pushMany(broker, 'crashy', 'p', 1)
    expect((await pop(broker, 'crashy')).messages[0].retryCount).toBe(0)
    await sleep(1100)
    expect((await pop(broker, 'crashy')).messages[0].retryCount).toBe(1)
    await sleep(1100)
    // The second expiry exceeds retryLimit 1: dead-lettered with "lease expired", nothing left to pop.
    expect((await pop(broker, 'crashy')).messages).toEqual([])
    const listed = await http(broker, 'GET', '/api/v1/dlq?queue=crashy')
    expect(listed.body.messages.map((message: any) => [message.errorMessage, message.retryCount])).toEqual([
      ['lease expired', 2],
    ])
  })

  it('applies dlq and retry statuses', async () => {
    await pushMany(broker, 'statuses', 'p', 2)
    const body = await pop(broker, 'statuses', { batch: 2 })
    const retried = await ack(broker, body.messages[1], { status: 'retry' })
    expect(retried).toMatchObject({ success: true, dlq: false })
    const dead = await ack(broker, body.messages[0], { status: 'dlq', error: 'bad payload' })
    expect(dead).toMatchObject({ success: true, dlq: true, leaseReleased: true })
    const next = await pop(broker, 'statuses')
    expect(numbers(next)).toEqual([1])
    expect(next.messages[0].retryCount).toBe(0)
  })

  it('honours per-item consumer groups in a batch when no top-level group is given', async () => {
    await pushMany(broker, 'groups-batch', 'p', 1)
    const a = await pop(broker, 'groups-batch', { consumerGroup: 'A' })
    const b = await pop(broker, 'groups-batch', { consumerGroup: 'B' })
    const results = await ackBatch(broker, [a.messages[0], b.messages[0]])
    expect(results.map((item) => [item.success, item.leaseReleased])).toEqual([
      [true, true],
      [true, true],
    ])
    expect((await consumerRow('groups-batch', 'A')).cursor_position).toBe(1)
    expect((await consumerRow('groups-batch', 'B')).cursor_position).toBe(1)
  })

  it('settles a whole lease acked in any order in one batch; a batch naming a message outside the lease answers per item', async () => {
    await pushMany(broker, 'whole-lease', 'a', 3)
    await pushMany(broker, 'whole-lease', 'b', 3)
    const first = await pop(broker, 'whole-lease', { batch: 3 })
    const second = await pop(broker, 'whole-lease', { batch: 3 })
    const [whole, other] = [first.messages, second.messages]
    expect(new Set([...whole, ...other].map((m: any) => m.partition))).toEqual(new Set(['a', 'b']))
    // The other lease's batch names its first two messages and one that does not exist.
    const foreign = { ...other[0], transactionId: 'not-in-this-lease' }
    const results = await ackBatch(broker, [whole[2], other[0], whole[0], foreign, whole[1], other[1]])
    expect(results.map((item) => [item.transactionId, item.success, item.error, item.leaseReleased])).toEqual([
      [whole[2].transactionId, true, null, false],
      [other[0].transactionId, true, null, false],
      [whole[0].transactionId, true, null, false],
      ['not-in-this-lease', false, 'Message not found', null],
      [whole[1].transactionId, true, null, true],
      [other[1].transactionId, true, null, false],
    ])
    const rows = await broker.db.query(
      `SELECT p.name, c.cursor_position, c.lease_id IS NOT NULL AS leased, c.total_consumed FROM queen.consumers c
       JOIN queen.partitions p ON p.id = c.partition_id JOIN queen.queues q ON q.id = c.queue_id
       WHERE q.name = 'whole-lease' ORDER BY p.name`,
    )
    const byName = Object.fromEntries(rows.rows.map((row) => [row.name, row]))
    expect(byName[whole[0].partition]).toMatchObject({ cursor_position: 3, leased: false, total_consumed: 3 })
    // Two of three settled: the cursor covers them, the lease stays for the third.
    expect(byName[other[0].partition]).toMatchObject({ cursor_position: 2, leased: true, total_consumed: 2 })
    const last = await ack(broker, other[2])
    expect(last).toMatchObject({ success: true, leaseReleased: true })
  })

  it('answers a whole-lease batch with an expired lease per item, and a repeated message as already acked', async () => {
    await configure(broker, 'whole-expired', { leaseTime: 1 })
    await pushMany(broker, 'whole-expired', 'p', 2)
    const expired = await pop(broker, 'whole-expired', { batch: 2 })
    await sleep(1200)
    const results = await ackBatch(broker, expired.messages)
    expect(results.map((item) => [item.success, item.error])).toEqual([
      [false, 'Invalid or expired lease'],
      [false, 'Invalid or expired lease'],
    ])
    const again = await pop(broker, 'whole-expired', { batch: 2 })
    const twice = await ackBatch(broker, [again.messages[0], again.messages[0], again.messages[1]])
    expect(twice.map((item) => [item.success, item.alreadyAcked])).toEqual([
      [true, false],
      [true, true],
      [true, false],
    ])
    expect((await consumerRow('whole-expired')).cursor_position).toBe(2)
  })

  it('fuses concurrent acks into fewer database round trips than requests', async () => {
    await pushMany(broker, 'ack-fused', 'p', 40)
    const body = await pop(broker, 'ack-fused', { batch: 40 })
    const before = broker.services.ack.batching
    const results = await Promise.all(body.messages.map((message: any) => ack(broker, message)))
    const after = broker.services.ack.batching
    expect(results.every((result) => result.success)).toBe(true)
    expect(after.requests - before.requests).toBe(40)
    expect(after.batches - before.batches).toBeLessThan(40)
    expect((await consumerRow('ack-fused')).cursor_position).toBe(40)
  })
})

describe('POST /api/v1/lease/:leaseId/extend', () => {
  it('extends a live lease, refuses an expired one and an unknown one', async () => {
    await configure(broker, 'renew', { leaseTime: 1 })
    await pushMany(broker, 'renew', 'p', 1)
    const body = await pop(broker, 'renew')
    for (let index = 0; index < 3; index++) {
      await sleep(500)
      const renewed = await http(broker, 'POST', `/api/v1/lease/${body.leaseId}/extend`, { seconds: 1 })
      expect(renewed.body[0]).toMatchObject({ index: 0, leaseId: body.leaseId, success: true, error: null })
      expect(new Date(renewed.body[0].expiresAt).getTime()).toBeGreaterThan(Date.now())
    }
    // Held for 1.5 s with a 1 s lease: still ours.
    expect((await ack(broker, body.messages[0])).success).toBe(true)

    await pushMany(broker, 'renew', 'p', 1, 1)
    const second = await pop(broker, 'renew')
    await sleep(1200)
    const late = await http(broker, 'POST', `/api/v1/lease/${second.leaseId}/extend`)
    expect(late.body[0]).toMatchObject({ success: false, error: 'Lease already expired', expiresAt: null })
    const unknown = await http(broker, 'POST', '/api/v1/lease/0190b3c6-4f1c-7a3e-9b2d-1c2d3e4f5a6b/extend', {})
    expect(unknown.body[0]).toMatchObject({ success: false, error: 'Lease not found' })
  })
})
