import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { http, startTestBroker, type TestBroker } from '../../support/broker.js'
import { ack, configure, numbers, pop, push, pushMany } from '../../support/queen.js'

let broker: TestBroker
beforeAll(async () => {
  broker = await startTestBroker({ label: 'messages' })
})
afterAll(async () => {
  await broker.close()
})

const LIST_KEYS = [
  'busStatus',
  'createdAt',
  'id',
  'leaseExpiresAt',
  'namespace',
  'partition',
  'partitionId',
  'producerSub',
  'queue',
  'queuePath',
  'queuePriority',
  'queueStatus',
  'status',
  'task',
  'traceId',
  'transactionId',
].sort()

const DETAIL_KEYS = [
  'consumerGroups',
  'createdAt',
  'errorMessage',
  'id',
  'isEncrypted',
  'leaseExpiresAt',
  'mode',
  'namespace',
  'partition',
  'partitionId',
  'payload',
  'producerSub',
  'queue',
  'queueConfig',
  'queuePath',
  'retryCount',
  'status',
  'task',
  'traceId',
  'transactionId',
].sort()

/** Pushes `{ n }` payloads with transaction ids `<prefix>-<n>` to one partition; returns the push results. */
async function pushNamed(queue: string, partition: string, prefix: string, count: number): Promise<any[]> {
  return push(
    broker,
    Array.from({ length: count }, (_, n) => ({ queue, partition, payload: { n }, transactionId: `${prefix}-${n}` })),
  )
}

async function consumer(queue: string, group = '__QUEUE_MODE__') {
  const rows = await broker.db.query(
    `SELECT c.partition_id, c.cursor_position, c.lease_id FROM queen.consumers c
     JOIN queen.queues q ON q.id = c.queue_id WHERE q.name = $1 AND c.consumer_group = $2 ORDER BY c.partition_id`,
    [queue, group],
  )
  return rows.rows
}

/** For {@link count}: the messages of the queue named $1. */
const QUEUE_MESSAGES =
  'queen.messages m JOIN queen.partitions p ON p.id = m.partition_id JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = $1'

async function count(sql: string, values: unknown[] = []): Promise<number> {
  const rows = await broker.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${sql}`, values)
  return rows.rows[0]!.n
}

describe('GET /api/v1/messages', () => {
  // m0 completed, m1 dead-lettered, m2 in flight, m3 pending for queue mode; group g consumed m0 only.
  let partitionId: string
  beforeAll(async () => {
    await configure(broker, 'listing.jobs', { retryLimit: 0, priority: 7 })
    partitionId = (await pushNamed('listing.jobs', 'p', 'list', 4))[0].partition_id
    const first = await pop(broker, 'listing.jobs', { batch: 2 })
    await ack(broker, first.messages[0])
    await ack(broker, first.messages[1], { status: 'failed', error: 'boom' })
    await pop(broker, 'listing.jobs', { batch: 1 })
    await pop(broker, 'listing.jobs', { consumerGroup: 'g', batch: 1, autoAck: true })
    await pushNamed('listing.other', 'x', 'other', 1)
  })

  it('lists newest first with the exact keys, per-message status for queue mode, and the mode', async () => {
    const response = await http(broker, 'GET', '/api/v1/messages?queue=listing.jobs')
    expect(response.status).toBe(200)
    expect(Object.keys(response.body).sort()).toEqual(['messages', 'mode'])
    expect(response.body.mode).toEqual({ hasQueueMode: true, busGroupsCount: 1, type: 'hybrid' })
    const messages = response.body.messages
    expect(messages.map((m: any) => m.transactionId)).toEqual(['list-3', 'list-2', 'list-1', 'list-0'])
    for (const message of messages) expect(Object.keys(message).sort()).toEqual(LIST_KEYS)
    expect(messages.map((m: any) => m.status)).toEqual(['pending', 'processing', 'dead_letter', 'completed'])
    expect(messages.map((m: any) => m.queueStatus)).toEqual(['pending', 'processing', 'dead_letter', 'completed'])
    expect(messages.map((m: any) => m.busStatus)).toEqual([
      { consumedBy: 0, totalGroups: 1 },
      { consumedBy: 0, totalGroups: 1 },
      { consumedBy: 0, totalGroups: 1 },
      { consumedBy: 1, totalGroups: 1 },
    ])
    expect(messages[1]).toMatchObject({
      partitionId,
      queuePath: 'listing.jobs/p',
      queue: 'listing.jobs',
      partition: 'p',
      namespace: 'listing',
      task: 'jobs',
      queuePriority: 7,
      traceId: null,
      producerSub: null,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      leaseExpiresAt: expect.stringMatching(/Z$/),
    })
    expect(messages[0].leaseExpiresAt).toBeNull()
    expect(messages[0]).not.toHaveProperty('data')
    expect(messages[0]).not.toHaveProperty('payload')
  })

  it('computes the status for the given consumer group and filters on it', async () => {
    const group = await http(broker, 'GET', '/api/v1/messages?queue=listing.jobs&consumerGroup=g')
    expect(group.body.messages.map((m: any) => [m.transactionId, m.status, m.queueStatus])).toEqual([
      ['list-3', 'pending', 'pending'],
      ['list-2', 'pending', 'processing'],
      ['list-1', 'pending', 'dead_letter'],
      ['list-0', 'completed', 'completed'],
    ])
    const completed = await http(broker, 'GET', '/api/v1/messages?queue=listing.jobs&consumerGroup=g&status=completed')
    expect(completed.body.messages.map((m: any) => m.transactionId)).toEqual(['list-0'])
    const failed = await http(broker, 'GET', '/api/v1/messages?queue=listing.jobs&status=failed')
    expect(failed.body.messages.map((m: any) => m.transactionId)).toEqual(['list-1'])
    const deadLetter = await http(broker, 'GET', '/api/v1/messages?queue=listing.jobs&status=dead_letter')
    expect(deadLetter.body.messages.map((m: any) => m.transactionId)).toEqual(['list-1'])
    const processing = await http(broker, 'GET', '/api/v1/messages?queue=listing.jobs&status=processing')
    expect(processing.body.messages.map((m: any) => m.transactionId)).toEqual(['list-2'])
    // A group that never read the queue has settled nothing.
    const stranger = await http(
      broker,
      'GET',
      '/api/v1/messages?queue=listing.jobs&consumerGroup=nobody&status=pending',
    )
    expect(stranger.body.messages).toHaveLength(4)
  })

  it('finds completed messages above the cursor: settled out of order, or older than a subscription start', async () => {
    await pushNamed('edges.list', 'p', 'edge', 3)
    const leased = await pop(broker, 'edges.list', { batch: 3 })
    await ack(broker, leased.messages[2])
    await pushNamed('edges.list', 'q', 'other', 1)
    // A group subscribing with mode "new" after those four has nothing to do with them, also on partition q
    // it never read; it then reads a fifth.
    await pop(broker, 'edges.list', { consumerGroup: 'late', subscriptionMode: 'new', batch: 1 }, 'p')
    await new Promise((resolve) => setTimeout(resolve, 5))
    await pushNamed('edges.list', 'p', 'later', 1)
    const list = async (query: string) => {
      const response = await http(broker, 'GET', `/api/v1/messages?queue=edges.list&${query}`)
      expect(response.status).toBe(200)
      return response.body.messages.map((m: any) => m.transactionId)
    }
    expect(await list('status=completed')).toEqual(['edge-2'])
    expect(await list('status=processing')).toEqual(['edge-1', 'edge-0'])
    expect(await list('status=pending')).toEqual(['later-0', 'other-0'])
    expect(await list('consumerGroup=late&status=completed')).toEqual(['other-0', 'edge-2', 'edge-1', 'edge-0'])
    expect(await list('consumerGroup=late&status=pending')).toEqual(['later-0'])
    expect(await list('consumerGroup=late&status=completed&limit=1&offset=3')).toEqual(['edge-0'])
  })

  it('filters on partition, namespace (ns or namespace) and task, and pages with limit and offset', async () => {
    const page = await http(broker, 'GET', '/api/v1/messages?queue=listing.jobs&limit=2&offset=1')
    expect(page.body.messages.map((m: any) => m.transactionId)).toEqual(['list-2', 'list-1'])
    const byNs = await http(broker, 'GET', '/api/v1/messages?ns=listing&task=other')
    expect(byNs.body.messages.map((m: any) => m.transactionId)).toEqual(['other-0'])
    expect(byNs.body.mode).toEqual({ hasQueueMode: false, busGroupsCount: 0, type: 'none' })
    const byNamespace = await http(broker, 'GET', '/api/v1/messages?namespace=listing')
    expect(byNamespace.body.messages).toHaveLength(5)
    const byPartition = await http(broker, 'GET', '/api/v1/messages?partition=x')
    expect(byPartition.body.messages.map((m: any) => m.transactionId)).toEqual(['other-0'])
    const none = await http(broker, 'GET', '/api/v1/messages?queue=no-such-queue')
    expect(none.body).toEqual({ messages: [], mode: { hasQueueMode: false, busGroupsCount: 0, type: 'none' } })
  })

  it('looks at the last hour by default and honours from and to', async () => {
    await pushNamed('listing-old', 'p', 'old', 2)
    await broker.db.query(
      `UPDATE queen.messages m SET created_at = now() - interval '90 minutes'
       FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id
       WHERE p.id = m.partition_id AND q.name = 'listing-old' AND m.transaction_id = 'old-0'`,
    )
    const recent = await http(broker, 'GET', '/api/v1/messages?queue=listing-old')
    expect(recent.body.messages.map((m: any) => m.transactionId)).toEqual(['old-1'])
    const from = new Date(Date.now() - 2 * 3600_000).toISOString()
    const all = await http(broker, 'GET', `/api/v1/messages?queue=listing-old&from=${from}`)
    expect(all.body.messages.map((m: any) => m.transactionId)).toEqual(['old-1', 'old-0'])
    // Without from, the window is the hour before to.
    const to = new Date(Date.now() - 3600_000).toISOString()
    const older = await http(broker, 'GET', `/api/v1/messages?queue=listing-old&to=${to}`)
    expect(older.body.messages.map((m: any) => m.transactionId)).toEqual(['old-0'])
    const future = new Date(Date.now() + 3600_000).toISOString()
    const empty = await http(broker, 'GET', `/api/v1/messages?queue=listing-old&from=${future}`)
    expect(empty.body.messages).toEqual([])
  })

  it.each([
    ['status=done', 'status: must be one of pending, processing, completed, dead_letter, failed'],
    ['limit=1001', 'limit: must be between 1 and 1000'],
    ['limit=0', 'limit: must be between 1 and 1000'],
    ['offset=-1', 'offset: must be between 0 and 9007199254740991'],
    ['limit=ten', 'limit: must be an integer'],
    ['from=yesterday', 'from: must be an ISO 8601 timestamp'],
    ['to=2026-13-45', 'to: must be an ISO 8601 timestamp'],
    ['queue=bad%20name', 'queue: must be 1-255 characters from [A-Za-z0-9_.:@-], starting with a letter, digit or _'],
    ['consumerGroup=a%2Fb', "consumerGroup: must not contain '/'"],
    ['partition=..', "partition: must not be '.' or '..'"],
  ])('answers 400 to %s', async (query, error) => {
    const response = await http(broker, 'GET', `/api/v1/messages?${query}`)
    expect(response.status).toBe(400)
    expect(response.body).toEqual({ error, code: 'QUEEN_ERR_VALIDATION' })
  })
})

describe('GET /api/v1/messages/:partitionId/:transactionId', () => {
  it('answers the exact keys with the payload, queue config, mode and per-group state', async () => {
    await configure(broker, 'detail', { leaseTime: 120, retryLimit: 5, retryDelay: 250, priority: 3 })
    const [pushed] = await push(broker, [
      {
        queue: 'detail',
        partition: 'p',
        payload: { order: 42 },
        transactionId: 'detail-0',
        traceId: '0190f0c4-1c52-7b8e-9a3c-0123456789ab',
      },
    ])
    await pop(broker, 'detail', { consumerGroup: 'fast', autoAck: true })
    const leased = await pop(broker, 'detail', { consumerGroup: 'slow' })
    const response = await http(broker, 'GET', `/api/v1/messages/${pushed.partition_id}/detail-0`)
    expect(response.status).toBe(200)
    expect(Object.keys(response.body).sort()).toEqual(DETAIL_KEYS)
    expect(response.body).toEqual({
      id: pushed.message_id,
      transactionId: 'detail-0',
      partitionId: pushed.partition_id,
      queuePath: 'detail/p',
      queue: 'detail',
      partition: 'p',
      namespace: 'detail',
      task: '',
      // No queue-mode cursor: the slowest named group is the reference (docs/semantics.md, "Status counters").
      status: 'processing',
      payload: { order: 42 },
      isEncrypted: false,
      traceId: '0190f0c4-1c52-7b8e-9a3c-0123456789ab',
      producerSub: null,
      createdAt: expect.stringMatching(/Z$/),
      errorMessage: null,
      retryCount: 0,
      leaseExpiresAt: expect.stringMatching(/Z$/),
      queueConfig: { leaseTime: 120, retryLimit: 5, retryDelay: 250, ttl: null, priority: 3 },
      mode: { hasQueueMode: false, busGroupsCount: 2, consumedByGroups: 1, type: 'bus' },
      consumerGroups: [
        { name: 'fast', consumed: true, leaseExpiresAt: null },
        { name: 'slow', consumed: false, leaseExpiresAt: response.body.leaseExpiresAt },
      ],
    })
    const leaseRow = await broker.db.query('SELECT lease_expires_at FROM queen.consumers WHERE lease_id = $1', [
      leased.leaseId,
    ])
    expect(response.body.leaseExpiresAt).toBe(leaseRow.rows[0].lease_expires_at.toISOString())
  })

  it('reports the queue-mode failure count and error, and hides an encrypted payload', async () => {
    await configure(broker, 'detail-failed', { retryLimit: 3, retryDelay: 60_000 })
    const [pushed] = await pushNamed('detail-failed', 'Default', 'df', 1)
    const body = await pop(broker, 'detail-failed')
    await ack(broker, body.messages[0], { status: 'failed', error: 'timeout talking to x' })
    const failed = await http(broker, 'GET', `/api/v1/messages/${pushed.partition_id}/df-0`)
    expect(failed.body).toMatchObject({
      status: 'pending',
      errorMessage: 'timeout talking to x',
      retryCount: 1,
      leaseExpiresAt: null,
      mode: { hasQueueMode: true, busGroupsCount: 0, consumedByGroups: 0, type: 'queue' },
      consumerGroups: [],
    })
    await broker.db.query("UPDATE queen.messages SET is_encrypted = true WHERE transaction_id = 'df-0'")
    const encrypted = await http(broker, 'GET', `/api/v1/messages/${pushed.partition_id}/df-0`)
    expect(encrypted.body).toMatchObject({
      payload: null,
      payloadError: 'encryption key unavailable',
      isEncrypted: true,
    })
  })

  it('reads URL-encoded transaction ids', async () => {
    const transactionId = 'order #1/ä?x=1'
    const [pushed] = await push(broker, [{ queue: 'detail-encoded', payload: 1, transactionId }])
    const response = await http(
      broker,
      'GET',
      `/api/v1/messages/${pushed.partition_id}/${encodeURIComponent(transactionId)}`,
    )
    expect(response.status).toBe(200)
    expect(response.body).toMatchObject({ transactionId, payload: 1, id: pushed.message_id })
  })

  it('answers 404 Message not found for an unknown message and for a partition id that is not a UUID', async () => {
    const [pushed] = await pushNamed('detail-missing', 'p', 'dm', 1)
    for (const path of [
      `/api/v1/messages/${pushed.partition_id}/no-such-transaction`,
      '/api/v1/messages/not-a-uuid/dm-0',
      '/api/v1/messages/00000000-0000-4000-8000-000000000000/dm-0',
    ]) {
      const response = await http(broker, 'GET', path)
      expect(response.status, path).toBe(404)
      expect(response.body).toEqual({ error: 'Message not found', code: 'QUEEN_ERR_MESSAGE_NOT_FOUND' })
    }
  })
})

describe('DELETE /api/v1/messages/:partitionId/:transactionId', () => {
  it('deletes a leased message, releases the lease it alone held open, and never blocks the cursor', async () => {
    const pushed = await pushNamed('del-leased', 'p', 'dl', 3)
    const partitionId = pushed[0].partition_id
    const body = await pop(broker, 'del-leased', { batch: 2 })
    expect(numbers(body)).toEqual([0, 1])
    await ack(broker, body.messages[0])
    expect((await consumer('del-leased'))[0]).toMatchObject({ cursor_position: 1, lease_id: body.leaseId })

    const deleted = await http(broker, 'DELETE', `/api/v1/messages/${partitionId}/dl-1`)
    expect(deleted.status).toBe(200)
    expect(deleted.body).toEqual({
      success: true,
      partitionId,
      transactionId: 'dl-1',
      message: 'Message deleted successfully',
    })
    expect((await consumer('del-leased'))[0]).toMatchObject({ cursor_position: 2, lease_id: null })
    // The next message is delivered at once; the deleted one never again.
    const next = await pop(broker, 'del-leased', { batch: 10 })
    expect(numbers(next)).toEqual([2])
    const lateAck = await ack(broker, body.messages[1])
    expect(lateAck).toMatchObject({ success: false, error: 'Message not found' })
  })

  it('deleting a message in the middle of a lease keeps the lease until the others have outcomes', async () => {
    const pushed = await pushNamed('del-middle', 'p', 'mid', 3)
    const body = await pop(broker, 'del-middle', { batch: 3 })
    await http(broker, 'DELETE', `/api/v1/messages/${pushed[0].partition_id}/mid-1`)
    expect((await consumer('del-middle'))[0]).toMatchObject({ cursor_position: 0, lease_id: body.leaseId })
    await ack(broker, body.messages[0])
    const last = await ack(broker, body.messages[2])
    expect(last.leaseReleased).toBe(true)
    expect((await consumer('del-middle'))[0]).toMatchObject({ cursor_position: 3, lease_id: null })
  })

  it('removes DLQ entries and traces, and keeps a dedup entry so a producer retry stays a duplicate', async () => {
    await configure(broker, 'del-dlq', { retryLimit: 0, deadLetterQueue: true })
    const [pushed] = await pushNamed('del-dlq', 'p', 'dd', 1)
    const body = await pop(broker, 'del-dlq')
    await http(broker, 'POST', '/api/v1/traces', {
      transactionId: 'dd-0',
      partitionId: pushed.partition_id,
      data: { step: 1 },
      traceNames: ['del-flow'],
    })
    await ack(broker, body.messages[0], { status: 'failed' })
    expect(await count('queen.dead_letters WHERE transaction_id = $1', ['dd-0'])).toBe(1)

    const deleted = await http(broker, 'DELETE', `/api/v1/messages/${pushed.partition_id}/dd-0`)
    expect(deleted.body.success).toBe(true)
    expect(await count('queen.messages WHERE transaction_id = $1', ['dd-0'])).toBe(0)
    expect(await count('queen.dead_letters WHERE transaction_id = $1', ['dd-0'])).toBe(0)
    expect(await count('queen.traces WHERE transaction_id = $1', ['dd-0'])).toBe(0)
    expect(await count("queen.trace_names WHERE trace_name = 'del-flow'")).toBe(0)
    const dedup = await broker.db.query('SELECT message_id FROM queen.dedup_entries WHERE transaction_id = $1', [
      'dd-0',
    ])
    expect(dedup.rows).toEqual([{ message_id: pushed.message_id }])
    const retried = await push(broker, [{ queue: 'del-dlq', partition: 'p', payload: {}, transactionId: 'dd-0' }])
    expect(retried[0]).toMatchObject({ status: 'duplicate', message_id: pushed.message_id })
  })

  it('deletes a DLQ payload copy whose message retention already removed', async () => {
    await configure(broker, 'del-copy', { retryLimit: 0, deadLetterQueue: true })
    const [pushed] = await pushNamed('del-copy', 'p', 'dc', 1)
    const body = await pop(broker, 'del-copy')
    await ack(broker, body.messages[0], { status: 'failed' })
    await broker.db.query('DELETE FROM queen.messages WHERE partition_id = $1', [pushed.partition_id])
    const deleted = await http(broker, 'DELETE', `/api/v1/messages/${pushed.partition_id}/dc-0`)
    expect(deleted.body.message).toBe('Message deleted successfully')
    expect(await count('queen.dead_letters WHERE partition_id = $1', [pushed.partition_id])).toBe(0)
  })

  it('answers 200 Message not found for an unknown message and 400 for a partition id that is not a UUID', async () => {
    const [pushed] = await pushNamed('del-unknown', 'p', 'du', 1)
    const unknown = await http(broker, 'DELETE', `/api/v1/messages/${pushed.partition_id}/nope`)
    expect(unknown.status).toBe(200)
    expect(unknown.body).toEqual({
      success: false,
      partitionId: pushed.partition_id,
      transactionId: 'nope',
      message: 'Message not found',
    })
    const again = await http(broker, 'DELETE', `/api/v1/messages/${pushed.partition_id}/du-0`)
    expect(again.body.success).toBe(true)
    const twice = await http(broker, 'DELETE', `/api/v1/messages/${pushed.partition_id}/du-0`)
    expect(twice.body).toMatchObject({ success: false, message: 'Message not found' })
    const bad = await http(broker, 'DELETE', '/api/v1/messages/not-a-uuid/du-0')
    expect(bad.status).toBe(400)
    expect(bad.body).toEqual({ error: 'partitionId: must be a UUID', code: 'QUEEN_ERR_VALIDATION' })
  })

  it('ignores a body', async () => {
    const [pushed] = await pushNamed('del-body', 'p', 'db', 1)
    const response = await http(broker, 'DELETE', `/api/v1/messages/${pushed.partition_id}/db-0`, 'not json', {
      'content-type': 'text/plain',
    })
    expect(response.status).toBe(200)
    expect(response.body.success).toBe(true)
  })
})

describe('DELETE /api/v1/queues/:queue/clear', () => {
  it('deletes every message with its DLQ entries and traces and keeps queue, partitions, groups and dedup', async () => {
    await configure(broker, 'clear-me', { retryLimit: 0, deadLetterQueue: true, priority: 4 })
    const p1 = await pushNamed('clear-me', 'p1', 'c1', 3)
    const p2 = await pushNamed('clear-me', 'p2', 'c2', 2)
    // Queue mode: one message dead-lettered on p1 and a live lease on p1; group g read everything on p2.
    const failed = await pop(broker, 'clear-me', { batch: 1 }, 'p1')
    await ack(broker, failed.messages[0], { status: 'failed' })
    const leased = await pop(broker, 'clear-me', { batch: 1 }, 'p1')
    await pop(broker, 'clear-me', { consumerGroup: 'g', batch: 10, autoAck: true }, 'p2')
    await http(broker, 'POST', '/api/v1/traces', {
      transactionId: 'c1-1',
      partitionId: p1[0].partition_id,
      data: {},
      traceNames: ['clear-flow'],
    })

    const cleared = await http(broker, 'DELETE', '/api/v1/queues/clear-me/clear')
    expect(cleared.status).toBe(200)
    expect(cleared.body).toEqual({ success: true, queue: 'clear-me', deletedMessages: 5 })

    const partitions = [p1[0].partition_id, p2[0].partition_id]
    expect(await count('queen.messages WHERE partition_id = ANY($1)', [partitions])).toBe(0)
    expect(await count('queen.dead_letters WHERE partition_id = ANY($1)', [partitions])).toBe(0)
    expect(await count('queen.traces WHERE partition_id = ANY($1)', [partitions])).toBe(0)
    expect(await count('queen.message_states WHERE partition_id = ANY($1)', [partitions])).toBe(0)
    expect(await count('queen.dedup_entries WHERE partition_id = ANY($1)', [partitions])).toBe(5)
    expect(await count("queen.partitions p JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = 'clear-me'")).toBe(3)
    const described = await http(broker, 'GET', '/api/v1/resources/queues/clear-me')
    expect(described.body.options).toMatchObject({ retryLimit: 0, deadLetterQueue: true, priority: 4 })
    // Cursors at the partition heads, leases released, groups kept.
    expect(await consumer('clear-me')).toEqual([
      { partition_id: p1[0].partition_id, cursor_position: 3, lease_id: null },
    ])
    expect((await consumer('clear-me', 'g')).map((row) => row.cursor_position)).toEqual([2])

    // Next pops are empty; an ack under the old lease finds nothing.
    expect((await pop(broker, 'clear-me', { batch: 10 })).messages).toEqual([])
    expect((await pop(broker, 'clear-me', { consumerGroup: 'g', batch: 10 })).messages).toEqual([])
    expect(await ack(broker, leased.messages[0])).toMatchObject({ success: false, error: 'Message not found' })
    // A producer retry of a cleared transaction id stays a duplicate; a new message is delivered.
    const retry = await push(broker, [{ queue: 'clear-me', partition: 'p1', payload: {}, transactionId: 'c1-0' }])
    expect(retry[0]).toMatchObject({ status: 'duplicate', message_id: p1[0].message_id })
    await push(broker, [{ queue: 'clear-me', partition: 'p1', payload: { n: 99 }, transactionId: 'fresh' }])
    expect(numbers(await pop(broker, 'clear-me', { batch: 10 }))).toEqual([99])
    expect(numbers(await pop(broker, 'clear-me', { consumerGroup: 'g', batch: 10 }))).toEqual([99])
  })

  it('writes dedup entries only for messages still inside the dedup window', async () => {
    await configure(broker, 'clear-window', { dedupWindowSeconds: 60 })
    await pushNamed('clear-window', 'p', 'cw', 2)
    await broker.db.query(
      "UPDATE queen.messages SET accepted_at = now() - interval '2 minutes' WHERE transaction_id = 'cw-0'",
    )
    const cleared = await http(broker, 'DELETE', '/api/v1/queues/clear-window/clear')
    expect(cleared.body.deletedMessages).toBe(2)
    const entries = await broker.db.query(
      "SELECT d.transaction_id FROM queen.dedup_entries d JOIN queen.partitions p ON p.id = d.partition_id JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = 'clear-window'",
    )
    expect(entries.rows).toEqual([{ transaction_id: 'cw-1' }])
    const pushed = await push(broker, [
      { queue: 'clear-window', partition: 'p', payload: {}, transactionId: 'cw-0' },
      { queue: 'clear-window', partition: 'p', payload: {}, transactionId: 'cw-1' },
    ])
    expect(pushed.map((item) => item.status)).toEqual(['queued', 'duplicate'])
  })

  it('clears only the partition named by ?partition= and keeps the counters of both right', async () => {
    // Given a capped queue (so it keeps a stored-messages counter) with three messages on p1 and two on p2
    await configure(broker, 'clear-part', { maxSize: 100, retryLimit: 0, deadLetterQueue: true })
    const p1 = await pushNamed('clear-part', 'p1', 'cp1', 3)
    const p2 = await pushNamed('clear-part', 'p2', 'cp2', 2)
    const [p1Id, p2Id] = [p1[0].partition_id, p2[0].partition_id]
    // queue mode: one p1 message dead-lettered, a live lease on p1 and one on p2; group g read p2's first
    const failed = await pop(broker, 'clear-part', { batch: 1 }, 'p1')
    await ack(broker, failed.messages[0], { status: 'failed' })
    await pop(broker, 'clear-part', { batch: 1 }, 'p1')
    const leasedOnP2 = await pop(broker, 'clear-part', { batch: 1 }, 'p2')
    await pop(broker, 'clear-part', { consumerGroup: 'g', batch: 1, autoAck: true }, 'p2')

    // When p1 is cleared
    const cleared = await http(broker, 'DELETE', '/api/v1/queues/clear-part/clear?partition=p1')

    // Then only p1's three messages and their state are gone, in the tables and in every counter
    expect(cleared.status).toBe(200)
    expect(cleared.body).toEqual({ success: true, queue: 'clear-part', deletedMessages: 3 })
    expect(await count('queen.messages WHERE partition_id = $1', [p1Id])).toBe(0)
    expect(await count('queen.messages WHERE partition_id = $1', [p2Id])).toBe(2)
    expect(await count('queen.dead_letters WHERE partition_id = $1', [p1Id])).toBe(0)
    expect(await count('queen.dedup_entries WHERE partition_id = $1', [p1Id])).toBe(3)
    expect(await count('queen.dedup_entries WHERE partition_id = $1', [p2Id])).toBe(0)
    const counters = await broker.db.query(
      `SELECT p.name, p.message_count::int AS message_count, q.stored_messages::int AS stored_messages
       FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = 'clear-part' ORDER BY p.name`,
    )
    expect(counters.rows).toEqual([
      { name: 'Default', message_count: 0, stored_messages: 2 },
      { name: 'p1', message_count: 0, stored_messages: 2 },
      { name: 'p2', message_count: 2, stored_messages: 2 },
    ])
    // p1's cursor is at its head with its lease released; p2's lease is still live
    const cursors = await consumer('clear-part')
    expect(cursors).toHaveLength(2)
    expect(cursors).toEqual(
      expect.arrayContaining([
        { partition_id: p1Id, cursor_position: 3, lease_id: null },
        { partition_id: p2Id, cursor_position: 0, lease_id: leasedOnP2.leaseId },
      ]),
    )
    const described = await http(broker, 'GET', '/api/v1/resources/queues/clear-part')
    const stats = Object.fromEntries(described.body.partitions.map((p: any) => [p.name, p.stats]))
    expect(stats.p1).toEqual({ total: 0, pending: 0, processing: 0, completed: 0, failed: 0, deadLetter: 0 })
    expect(stats.p2).toMatchObject({ total: 2, processing: 1, pending: 1 })
    expect(described.body.totals).toMatchObject({ total: 2, pending: 1, processing: 1, deadLetter: 0 })
    const listed = await http(broker, 'GET', '/api/v1/resources/queues?search=clear-part')
    expect(listed.body.queues).toEqual([
      expect.objectContaining({ name: 'clear-part', partitions: 3, messages: { total: 2, pending: 1, processing: 1 } }),
    ])

    // And p2's messages are still delivered: the lease on p2 acks, queue mode and g get the rest, a new group all
    expect(await ack(broker, leasedOnP2.messages[0])).toMatchObject({ success: true })
    expect(numbers(await pop(broker, 'clear-part', { batch: 10 }))).toEqual([1])
    expect(numbers(await pop(broker, 'clear-part', { consumerGroup: 'g', batch: 10 }))).toEqual([1])
    expect(numbers(await pop(broker, 'clear-part', { consumerGroup: 'fresh', batch: 10 }))).toEqual([0, 1])
  })

  it('answers deletedMessages 0 for a partition the queue does not have, 404 for an unknown queue, 400 for a bad name', async () => {
    await pushNamed('clear-part-other', 'p', 'cpo', 2)
    const unknown = await http(broker, 'DELETE', '/api/v1/queues/clear-part-other/clear?partition=nope')
    expect(unknown.status).toBe(200)
    expect(unknown.body).toEqual({ success: true, queue: 'clear-part-other', deletedMessages: 0 })
    expect(await count(QUEUE_MESSAGES, ['clear-part-other'])).toBe(2)
    const missing = await http(broker, 'DELETE', '/api/v1/queues/never-created/clear?partition=p')
    expect(missing.status).toBe(404)
    expect(missing.body).toEqual({ error: 'Queue not found', code: 'QUEEN_ERR_QUEUE_NOT_FOUND' })
    const bad = await http(broker, 'DELETE', '/api/v1/queues/clear-part-other/clear?partition=..')
    expect(bad.status).toBe(400)
    expect(bad.body.error).toMatch(/^partition: /)
    const twice = await http(broker, 'DELETE', '/api/v1/queues/clear-part-other/clear?partition=p&partition=p')
    expect(twice.status).toBe(400)
    // The partition name is the one pushes use: p itself clears.
    const cleared = await http(broker, 'DELETE', '/api/v1/queues/clear-part-other/clear?partition=p')
    expect(cleared.body.deletedMessages).toBe(2)
  })

  it('keeps the two-argument queen.clear_queue of earlier brokers clearing the whole queue', async () => {
    await pushNamed('clear-old-signature', 'a', 'cos-a', 1)
    await pushNamed('clear-old-signature', 'b', 'cos-b', 2)
    const result = await broker.db.query("SELECT queen.clear_queue('', 'clear-old-signature') AS deleted")
    expect(result.rows).toEqual([{ deleted: 3 }])
    expect(await count(QUEUE_MESSAGES, ['clear-old-signature'])).toBe(0)
    expect((await pop(broker, 'clear-old-signature', { batch: 10 })).messages).toEqual([])
  })

  it('answers 404 for an unknown queue, 400 for a bad name, and clears an empty queue', async () => {
    const missing = await http(broker, 'DELETE', '/api/v1/queues/never-created/clear')
    expect(missing.status).toBe(404)
    expect(missing.body).toEqual({ error: 'Queue not found', code: 'QUEEN_ERR_QUEUE_NOT_FOUND' })
    const bad = await http(broker, 'DELETE', '/api/v1/queues/.hidden/clear')
    expect(bad.status).toBe(400)
    expect(bad.body.error).toMatch(/^queue: /)
    await configure(broker, 'clear-empty')
    const empty = await http(broker, 'DELETE', '/api/v1/queues/clear-empty/clear', 'not json', {
      'content-type': 'text/plain',
    })
    expect(empty.status).toBe(200)
    expect(empty.body).toEqual({ success: true, queue: 'clear-empty', deletedMessages: 0 })
    await pushMany(broker, 'clear-empty', 'Default', 1)
    expect((await pop(broker, 'clear-empty')).messages).toHaveLength(1)
  })
})
