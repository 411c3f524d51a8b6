import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { http, startTestBroker, type TestBroker } from '../../support/broker.js'
import { ack, ackBatch, configure, numbers, pop, push } from '../../support/queen.js'

let broker: TestBroker
beforeAll(async () => {
  broker = await startTestBroker({ label: 'messages_dlq' })
})
afterAll(async () => {
  await broker.close()
})

/** Pushes `{ n }` payloads with transaction ids `<prefix>-<n>` to one partition; returns the push results. */
async function pushNamed(queue: string, partition: string, prefix: string, count: number): Promise<any[]> {
  return push(
    broker,
    Array.from({ length: count }, (_, n) => ({ queue, partition, payload: { n }, transactionId: `${prefix}-${n}` })),
  )
}

async function consumer(queue: string, group = '__QUEUE_MODE__') {
  const rows = await broker.db.query(
    `SELECT c.cursor_position, c.lease_id FROM queen.consumers c
     JOIN queen.queues q ON q.id = c.queue_id WHERE q.name = $1 AND c.consumer_group = $2`,
    [queue, group],
  )
  return rows.rows[0]
}

async function dlqGroups(partitionId: string, transactionId: string): Promise<string[]> {
  const rows = await broker.db.query<{ consumer_group: string }>(
    'SELECT consumer_group FROM queen.dead_letters WHERE partition_id = $1 AND transaction_id = $2 ORDER BY 1',
    [partitionId, transactionId],
  )
  return rows.rows.map((row) => row.consumer_group)
}

function retry(partitionId: string, transactionId: string, body?: unknown) {
  return http(broker, 'POST', `/api/v1/messages/${partitionId}/${transactionId}/retry`, body)
}

function moveToDlq(partitionId: string, transactionId: string, body?: unknown) {
  return http(broker, 'POST', `/api/v1/messages/${partitionId}/${transactionId}/dlq`, body)
}

describe('POST /api/v1/messages/:partitionId/:transactionId/retry', () => {
  it('redelivers a dead letter exactly once, to its group only, ahead of the next message, with retryCount 0', async () => {
    await configure(broker, 'retry-basic', { retryLimit: 0 })
    const pushed = await pushNamed('retry-basic', 'p', 'rb', 4)
    const partitionId = pushed[0].partition_id
    // Queue mode dead-letters m0 and completes m1, m2: its cursor passes m0. Group g2 reads everything.
    const first = await pop(broker, 'retry-basic', { batch: 1 })
    await ack(broker, first.messages[0], { status: 'failed', error: 'poison' })
    const second = await pop(broker, 'retry-basic', { batch: 2 })
    expect(numbers(second)).toEqual([1, 2])
    await ackBatch(broker, second.messages)
    expect(await consumer('retry-basic')).toMatchObject({ cursor_position: 3, lease_id: null })
    await pop(broker, 'retry-basic', { consumerGroup: 'g2', batch: 10, autoAck: true })

    const response = await retry(partitionId, 'rb-0')
    expect(response.status).toBe(200)
    expect(response.body).toEqual({
      success: true,
      partitionId,
      transactionId: 'rb-0',
      consumerGroups: ['__QUEUE_MODE__'],
      requeued: 1,
    })
    expect(await dlqGroups(partitionId, 'rb-0')).toEqual([])
    expect((await consumer('retry-basic')).cursor_position).toBe(0)

    // m0 comes back first, with its count reset; m1 and m2 are not delivered again.
    const redelivered = await pop(broker, 'retry-basic', { batch: 10 })
    expect(numbers(redelivered)).toEqual([0, 3])
    expect(redelivered.messages[0]).toMatchObject({ transactionId: 'rb-0', retryCount: 0, id: pushed[0].message_id })
    await ackBatch(broker, redelivered.messages)
    expect(await consumer('retry-basic')).toMatchObject({ cursor_position: 4, lease_id: null })
    expect((await pop(broker, 'retry-basic', { batch: 10 })).messages).toEqual([])
    expect((await pop(broker, 'retry-basic', { consumerGroup: 'g2', batch: 10 })).messages).toEqual([])
    const states = await broker.db.query(
      'SELECT count(*)::int AS n FROM queen.message_states WHERE partition_id = $1',
      [partitionId],
    )
    expect(states.rows[0].n).toBe(0)
    // Not in the DLQ any more.
    const again = await retry(partitionId, 'rb-0')
    expect(again.status).toBe(404)
    expect(again.body).toEqual({ error: 'Message is not in the dead-letter queue', code: 'QUEEN_ERR_NOT_FOUND' })
  })

  it('takes the message out of one group only, or out of every group when no group is given', async () => {
    await configure(broker, 'retry-groups', { retryLimit: 0 })
    const [pushed] = await pushNamed('retry-groups', 'p', 'rg', 1)
    for (const group of ['a', 'b', undefined]) {
      const body = await pop(broker, 'retry-groups', group ? { consumerGroup: group } : {})
      await ack(broker, body.messages[0], { status: 'failed' })
    }
    expect(await dlqGroups(pushed.partition_id, 'rg-0')).toEqual(['__QUEUE_MODE__', 'a', 'b'])

    const one = await retry(pushed.partition_id, 'rg-0', { consumerGroup: 'a' })
    expect(one.body).toMatchObject({ consumerGroups: ['a'], requeued: 1 })
    expect(await dlqGroups(pushed.partition_id, 'rg-0')).toEqual(['__QUEUE_MODE__', 'b'])
    expect(numbers(await pop(broker, 'retry-groups', { consumerGroup: 'a' }))).toEqual([0])
    expect((await pop(broker, 'retry-groups', { consumerGroup: 'b' })).messages).toEqual([])
    expect((await pop(broker, 'retry-groups')).messages).toEqual([])

    const notHeld = await retry(pushed.partition_id, 'rg-0', { consumerGroup: 'a' })
    expect(notHeld.status).toBe(404)
    const rest = await retry(pushed.partition_id, 'rg-0', {})
    expect(rest.body).toMatchObject({ consumerGroups: ['__QUEUE_MODE__', 'b'], requeued: 2 })
    expect(numbers(await pop(broker, 'retry-groups', { consumerGroup: 'b' }))).toEqual([0])
    expect(numbers(await pop(broker, 'retry-groups'))).toEqual([0])
  })

  it('does not let a live lease wait for, or count a failure on, a message retried inside its range', async () => {
    await configure(broker, 'retry-lease', { retryLimit: 0, leaseTime: 1 })
    const pushed = await pushNamed('retry-lease', 'p', 'rl', 2)
    const body = await pop(broker, 'retry-lease', { batch: 2 })
    await ack(broker, body.messages[0], { status: 'failed' })
    expect((await retry(pushed[0].partition_id, 'rl-0')).body.requeued).toBe(1)
    // The holder finishes its other message: the lease is released although m0 is open again.
    const last = await ack(broker, body.messages[1])
    expect(last).toMatchObject({ success: true, leaseReleased: true })
    const again = await pop(broker, 'retry-lease', { batch: 10 })
    expect(numbers(again)).toEqual([0])
    expect(again.messages[0].retryCount).toBe(0)
    expect((await ack(broker, again.messages[0])).success).toBe(true)
    expect(await consumer('retry-lease')).toMatchObject({ cursor_position: 2, lease_id: null })
  })

  it('pushes the DLQ payload copy as a new message when retention already deleted the original', async () => {
    await configure(broker, 'retry-copy', { retryLimit: 0, deadLetterQueue: true })
    const [pushed] = await push(broker, [
      { queue: 'retry-copy', partition: 'p', payload: { keep: 'me' }, transactionId: 'rc-0' },
    ])
    const body = await pop(broker, 'retry-copy')
    await ack(broker, body.messages[0], { status: 'failed' })
    // What retention does to a settled message; the DLQ entry keeps its own copy of the payload.
    await broker.db.query('DELETE FROM queen.messages WHERE partition_id = $1', [pushed.partition_id])

    const response = await retry(pushed.partition_id, 'rc-0')
    expect(response.status).toBe(200)
    expect(response.body).toEqual({
      success: true,
      partitionId: pushed.partition_id,
      transactionId: 'rc-0',
      consumerGroups: ['__QUEUE_MODE__'],
      requeued: 1,
      newTransactionId: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/),
    })
    expect(await dlqGroups(pushed.partition_id, 'rc-0')).toEqual([])
    const again = await pop(broker, 'retry-copy')
    expect(again.messages).toHaveLength(1)
    expect(again.messages[0]).toMatchObject({
      transactionId: response.body.newTransactionId,
      partitionId: pushed.partition_id,
      data: { keep: 'me' },
      retryCount: 0,
    })
    expect(again.messages[0].id).not.toBe(pushed.message_id)
    // The new message reaches every group.
    expect((await pop(broker, 'retry-copy', { consumerGroup: 'late' })).messages[0].data).toEqual({ keep: 'me' })
  })

  it('validates its input', async () => {
    const [pushed] = await pushNamed('retry-bad', 'p', 'rx', 1)
    const notDead = await retry(pushed.partition_id, 'rx-0')
    expect(notDead.status).toBe(404)
    expect(notDead.body.error).toBe('Message is not in the dead-letter queue')
    const unknownPartition = await retry('00000000-0000-4000-8000-000000000000', 'rx-0')
    expect(unknownPartition.status).toBe(404)
    const badPartition = await retry('nope', 'rx-0')
    expect(badPartition.status).toBe(400)
    expect(badPartition.body.error).toBe('partitionId: must be a UUID')
    const badGroup = await retry(pushed.partition_id, 'rx-0', { consumerGroup: 7 })
    expect(badGroup.status).toBe(400)
    expect(badGroup.body.error).toBe('consumerGroup: must be a string')
    const badBody = await retry(pushed.partition_id, 'rx-0', [1])
    expect(badBody.status).toBe(400)
  })
})

describe('POST /api/v1/messages/:partitionId/:transactionId/dlq', () => {
  it('dead-letters an in-flight message for queue mode; the holder then gets alreadyAcked', async () => {
    const pushed = await pushNamed('dlq-move', 'p', 'dm', 2)
    const partitionId = pushed[0].partition_id
    const body = await pop(broker, 'dlq-move', { batch: 2 })
    const response = await moveToDlq(partitionId, 'dm-0', { error: 'operator says no' })
    expect(response.status).toBe(200)
    expect(response.body).toEqual({
      success: true,
      partitionId,
      transactionId: 'dm-0',
      consumerGroup: '__QUEUE_MODE__',
      dlq: true,
    })
    expect(await consumer('dlq-move')).toMatchObject({ cursor_position: 1, lease_id: body.leaseId })
    const listed = await http(broker, 'GET', '/api/v1/dlq?queue=dlq-move')
    expect(listed.body.messages).toMatchObject([
      { transactionId: 'dm-0', consumerGroup: '__QUEUE_MODE__', errorMessage: 'operator says no', retryCount: 0 },
    ])
    const late = await ack(broker, body.messages[0])
    expect(late).toMatchObject({ success: true, alreadyAcked: true })
    expect((await ack(broker, body.messages[1])).leaseReleased).toBe(true)
    expect(await consumer('dlq-move')).toMatchObject({ cursor_position: 2, lease_id: null })

    const conflict = await moveToDlq(partitionId, 'dm-0')
    expect(conflict.status).toBe(409)
    expect(conflict.body).toEqual({
      error: "Message already consumed by group '__QUEUE_MODE__'",
      code: 'QUEEN_ERR_CONFLICT',
    })
    const completed = await moveToDlq(partitionId, 'dm-1', { consumerGroup: null })
    expect(completed.status).toBe(409)
  })

  it('releases the lease when the moved message was the only one open, and the next message is delivered', async () => {
    const pushed = await pushNamed('dlq-only', 'p', 'do', 2)
    const body = await pop(broker, 'dlq-only', { batch: 1 })
    const response = await moveToDlq(pushed[0].partition_id, 'do-0')
    expect(response.status).toBe(200)
    expect(await consumer('dlq-only')).toMatchObject({ cursor_position: 1, lease_id: null })
    expect(numbers(await pop(broker, 'dlq-only', { batch: 10 }))).toEqual([1])
    const dead = await broker.db.query('SELECT error, failures FROM queen.dead_letters WHERE transaction_id = $1', [
      'do-0',
    ])
    expect(dead.rows).toEqual([{ error: 'Moved to the dead-letter queue', failures: 0 }])
    expect((await ack(broker, body.messages[0])).alreadyAcked).toBe(true)
  })

  it('dead-letters for a named group only, even one that never read the partition', async () => {
    const pushed = await pushNamed('dlq-group', 'p', 'dg', 2)
    const response = await moveToDlq(pushed[0].partition_id, 'dg-0', { consumerGroup: 'fresh', error: 'skip it' })
    expect(response.body).toMatchObject({ success: true, consumerGroup: 'fresh' })
    const listed = await http(broker, 'GET', '/api/v1/messages?queue=dlq-group&consumerGroup=fresh')
    expect(listed.body.messages.map((m: any) => m.status)).toEqual(['pending', 'dead_letter'])
    expect(numbers(await pop(broker, 'dlq-group', { consumerGroup: 'fresh', batch: 10, autoAck: true }))).toEqual([1])
    expect(numbers(await pop(broker, 'dlq-group', { batch: 10 }))).toEqual([0, 1])
    // Retried after the group's cursor passed it, it is delivered to that group again, alone.
    const retried = await retry(pushed[0].partition_id, 'dg-0', { consumerGroup: 'fresh' })
    expect(retried.body.requeued).toBe(1)
    expect(numbers(await pop(broker, 'dlq-group', { consumerGroup: 'fresh', batch: 10, autoAck: true }))).toEqual([0])
    expect((await pop(broker, 'dlq-group', { consumerGroup: 'fresh', batch: 10 })).messages).toEqual([])
  })

  it('answers 404 for an unknown message and 400 for bad input', async () => {
    const [pushed] = await pushNamed('dlq-bad', 'p', 'dx', 1)
    const unknown = await moveToDlq(pushed.partition_id, 'nope')
    expect(unknown.status).toBe(404)
    expect(unknown.body).toEqual({ error: 'Message not found', code: 'QUEEN_ERR_MESSAGE_NOT_FOUND' })
    const otherPartition = await moveToDlq('00000000-0000-4000-8000-000000000000', 'dx-0')
    expect(otherPartition.status).toBe(404)
    for (const [body, error] of [
      [{ consumerGroup: 5 }, 'consumerGroup: must be a string'],
      [{ consumerGroup: 'a/b' }, "consumerGroup: must not contain '/'"],
      [{ error: 12 }, 'error: must be a string'],
      [{ error: 'x'.repeat(4097) }, 'error: must be at most 4096 characters'],
    ] as const) {
      const response = await moveToDlq(pushed.partition_id, 'dx-0', body)
      expect(response.status).toBe(400)
      expect(response.body.error).toBe(error)
    }
    const badPartition = await moveToDlq('nope', 'dx-0')
    expect(badPartition.status).toBe(400)
  })
})
