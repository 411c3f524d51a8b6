import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { http, startTestBroker, WAKE_ONLY_POP_WAIT, type TestBroker } from '../../support/broker.js'
import { ack, ackBatch, configure, numbers, pop, pushMany, sleep } from '../../support/queen.js'

let broker: TestBroker
beforeAll(async () => {
  broker = await startTestBroker({ label: 'consumer-groups' })
})
afterAll(async () => {
  await broker.close()
})

const LIST_KEYS = [
  'name',
  'topics',
  'queueName',
  'members',
  'partitionsWithLag',
  'totalLag',
  'maxTimeLag',
  'state',
  'subscriptionMode',
  'subscriptionTimestamp',
  'subscriptionCreatedAt',
].sort()

const LAGGING_KEYS = [
  'consumer_group',
  'queue_name',
  'partition_name',
  'partition_id',
  'worker_id',
  'offset_lag',
  'time_lag_seconds',
  'lag_hours',
  'oldest_unconsumed_at',
  'last_consumed_at',
].sort()

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

/** The GET /consumer-groups rows of one queue, by group name. */
async function groupsOf(queue: string): Promise<Record<string, any>> {
  const response = await http(broker, 'GET', '/api/v1/consumer-groups')
  expect(response.status).toBe(200)
  expect(Array.isArray(response.body)).toBe(true)
  return Object.fromEntries(
    response.body.filter((row: any) => row.queueName === queue).map((row: any) => [row.name, row]),
  )
}

/** Moves every message of a queue `seconds` into the past, keeping their order. */
async function backdate(queue: string, seconds: number, partition?: string): Promise<void> {
  await broker.db.query(
    `UPDATE queen.messages m SET created_at = m.created_at - make_interval(secs => $3)
     FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id
     WHERE p.id = m.partition_id AND q.name = $1 AND ($2::text IS NULL OR p.name = $2)`,
    [queue, partition ?? null, seconds],
  )
}

/** Cursor and lease of (queue, partition, group) as stored. */
async function consumerRow(queue: string, partition: string, group: string): Promise<any> {
  const result = await broker.db.query(
    `SELECT c.cursor_position, c.lease_id, c.start_at FROM queen.consumers c
     JOIN queen.partitions p ON p.id = c.partition_id JOIN queen.queues q ON q.id = p.queue_id
     WHERE q.name = $1 AND p.name = $2 AND c.consumer_group = $3`,
    [queue, partition, group],
  )
  return result.rows[0]
}

async function seek(group: string, queue: string, body: unknown) {
  return http(broker, 'POST', `/api/v1/consumer-groups/${group}/queues/${queue}/seek`, body)
}

/** Pops everything deliverable for the group (several pops) and acks it; returns the payload numbers. */
async function consumeAll(queue: string, group: string): Promise<number[]> {
  const seen: number[] = []
  for (;;) {
    const body = await pop(broker, queue, { consumerGroup: group, batch: 100 })
    if (body.messages.length === 0) return seen
    seen.push(...numbers(body))
    await ackBatch(broker, body.messages)
  }
}

describe('GET /api/v1/consumer-groups', () => {
  it('reports one row per (group, queue) with exact lag, members and subscription, queue mode included', async () => {
    // Given 5 messages, of which group "readers" consumed 2 and queue mode consumed 1
    await pushMany(broker, 'cg-lag', 'p', 5)
    const body = await pop(broker, 'cg-lag', { consumerGroup: 'readers', batch: 2 })
    await ackBatch(broker, body.messages)
    const queueMode = await pop(broker, 'cg-lag', { batch: 1 })
    await ack(broker, queueMode.messages[0])

    // Then the listing reports exactly 3 and 4 unsettled messages
    const groups = await groupsOf('cg-lag')
    expect(Object.keys(groups).sort()).toEqual(['__QUEUE_MODE__', 'readers'])
    expect(Object.keys(groups.readers).sort()).toEqual(LIST_KEYS)
    expect(groups.readers).toMatchObject({
      topics: ['cg-lag'],
      members: 1,
      partitionsWithLag: 1,
      totalLag: 3,
      state: 'Stable',
      subscriptionMode: 'all',
      subscriptionTimestamp: null,
    })
    expect(groups.readers.maxTimeLag).toBeGreaterThanOrEqual(0)
    expect(groups.readers.maxTimeLag).toBeLessThan(60)
    expect(groups.readers.subscriptionCreatedAt).toMatch(ISO_MS)
    expect(groups.__QUEUE_MODE__).toMatchObject({
      topics: ['cg-lag'],
      members: 1,
      totalLag: 4,
      state: 'Stable',
      subscriptionMode: null,
      subscriptionTimestamp: null,
      subscriptionCreatedAt: null,
    })
  })

  it('counts partitions the group never read from its subscription start, and only cursors as members', async () => {
    await pushMany(broker, 'cg-spread', 'a', 3)
    await pushMany(broker, 'cg-spread', 'b', 2)
    const first = await pop(broker, 'cg-spread', { consumerGroup: 'spread', batch: 1 }, 'a')
    await ack(broker, first.messages[0])
    const groups = await groupsOf('cg-spread')
    expect(groups.spread).toMatchObject({ members: 1, partitionsWithLag: 2, totalLag: 4 })
  })

  it('says Lagging past 300 s of time lag and Dead for a group that never consumed', async () => {
    await pushMany(broker, 'cg-state', 'p', 2)
    // "idle" takes a lease but never acks anything.
    await pop(broker, 'cg-state', { consumerGroup: 'idle', batch: 1 })
    const body = await pop(broker, 'cg-state', { consumerGroup: 'slow', batch: 1 })
    await ack(broker, body.messages[0])
    expect((await groupsOf('cg-state')).idle.state).toBe('Dead')

    await backdate('cg-state', 400)
    const groups = await groupsOf('cg-state')
    expect(groups.slow).toMatchObject({ state: 'Lagging', totalLag: 1 })
    expect(groups.slow.maxTimeLag).toBeGreaterThanOrEqual(400)
    expect(groups.slow.maxTimeLag).toBeLessThan(460)
    expect(groups.idle).toMatchObject({ state: 'Lagging', totalLag: 2 })
  })

  it('reports a subscription recorded with subscriptionMode=new and its start', async () => {
    await pushMany(broker, 'cg-sub-new', 'p', 2)
    const before = Date.now()
    await pop(broker, 'cg-sub-new', { consumerGroup: 'fresh', subscriptionMode: 'new' })
    const groups = await groupsOf('cg-sub-new')
    expect(groups.fresh).toMatchObject({ subscriptionMode: 'new', totalLag: 0, partitionsWithLag: 0, maxTimeLag: 0 })
    expect(Math.abs(Date.parse(groups.fresh.subscriptionTimestamp) - before)).toBeLessThan(5000)
  })
})

describe('GET /api/v1/consumer-groups/lagging', () => {
  it('lists (group, partition) pairs whose oldest unsettled message is older than minLagSeconds', async () => {
    await pushMany(broker, 'cg-lagging', 'old', 3)
    await pushMany(broker, 'cg-lagging', 'recent', 1)
    const body = await pop(broker, 'cg-lagging', { consumerGroup: 'behind', batch: 1 }, 'old')
    await ack(broker, body.messages[0])
    await backdate('cg-lagging', 2 * 3600, 'old')

    const rowsOf = async (query: string) => {
      const response = await http(broker, 'GET', `/api/v1/consumer-groups/lagging${query}`)
      expect(response.status).toBe(200)
      return response.body.filter((row: any) => row.queue_name === 'cg-lagging')
    }

    // Default threshold 3600 s: only the backdated partition.
    const byDefault = await rowsOf('')
    expect(byDefault).toHaveLength(1)
    const [row] = byDefault
    expect(Object.keys(row).sort()).toEqual(LAGGING_KEYS)
    expect(row).toMatchObject({
      consumer_group: 'behind',
      partition_name: 'old',
      partition_id: body.messages[0].partitionId,
      worker_id: null,
      offset_lag: 2,
    })
    expect(row.time_lag_seconds).toBeGreaterThanOrEqual(7200)
    expect(row.time_lag_seconds).toBeLessThan(7260)
    expect(row.lag_hours).toBeCloseTo(2, 1)
    expect(row.oldest_unconsumed_at).toMatch(ISO_MS)
    expect(row.last_consumed_at).toMatch(ISO_MS)

    // A higher threshold drops it; a threshold of 0 adds the partition never read (measured from the start).
    expect(await rowsOf('?minLagSeconds=10800')).toEqual([])
    const all = await rowsOf('?minLagSeconds=0')
    expect(all.map((r: any) => [r.partition_name, r.offset_lag, r.last_consumed_at])).toEqual([
      ['old', 2, row.last_consumed_at],
      ['recent', 1, null],
    ])
  })

  it.each(['abc', '1.5', '-1', '1e3'])('answers 400 for minLagSeconds=%s', async (value) => {
    const response = await http(broker, 'GET', `/api/v1/consumer-groups/lagging?minLagSeconds=${value}`)
    expect(response.status).toBe(400)
    expect(response.body).toMatchObject({
      error: expect.stringMatching(/^minLagSeconds: /),
      code: 'QUEEN_ERR_VALIDATION',
    })
  })
})

describe('GET /api/v1/consumer-groups/:group', () => {
  it('describes the group per queue and partition, and answers {} for an unknown group', async () => {
    await pushMany(broker, 'cg-describe-1', 'p', 4)
    await pushMany(broker, 'cg-describe-2', 'q', 1)
    const first = await pop(broker, 'cg-describe-1', { consumerGroup: 'describer', batch: 1 })
    await ack(broker, first.messages[0])
    // A second pop holds a lease on the partition.
    await pop(broker, 'cg-describe-1', { consumerGroup: 'describer', batch: 1 })
    await consumeAll('cg-describe-2', 'describer')

    const response = await http(broker, 'GET', '/api/v1/consumer-groups/describer')
    expect(response.status).toBe(200)
    expect(Object.keys(response.body).sort()).toEqual(['cg-describe-1', 'cg-describe-2'])
    const [partition] = response.body['cg-describe-1'].partitions
    expect(Object.keys(partition).sort()).toEqual(
      ['partition', 'workerId', 'lastConsumedAt', 'totalConsumed', 'offsetLag', 'timeLagSeconds', 'leaseActive'].sort(),
    )
    expect(partition).toMatchObject({ partition: 'p', totalConsumed: 1, offsetLag: 3, leaseActive: true })
    expect(partition.lastConsumedAt).toMatch(ISO_MS)
    expect(response.body['cg-describe-2'].partitions).toEqual([
      expect.objectContaining({
        partition: 'q',
        totalConsumed: 1,
        offsetLag: 0,
        timeLagSeconds: 0,
        leaseActive: false,
      }),
    ])

    const unknown = await http(broker, 'GET', '/api/v1/consumer-groups/nobody-here')
    expect(unknown).toMatchObject({ status: 200, body: {} })
  })
})

describe('DELETE /api/v1/consumer-groups/:group/queues/:queue', () => {
  it('removes the group from one queue only, keeping its subscription when deleteMetadata=false', async () => {
    await pushMany(broker, 'cg-del-1', 'p', 2)
    await pushMany(broker, 'cg-del-2', 'p', 2)
    expect(await consumeAll('cg-del-1', 'deleter')).toEqual([0, 1])
    expect(await consumeAll('cg-del-2', 'deleter')).toEqual([0, 1])

    const kept = await http(broker, 'DELETE', '/api/v1/consumer-groups/deleter/queues/cg-del-1?deleteMetadata=false')
    expect(kept).toMatchObject({
      status: 200,
      body: {
        success: true,
        consumerGroup: 'deleter',
        queueName: 'cg-del-1',
        deletedPartitions: 1,
        metadataDeleted: false,
      },
    })
    expect(Object.keys(kept.body).sort()).toEqual(
      ['success', 'consumerGroup', 'queueName', 'deletedPartitions', 'metadataDeleted'].sort(),
    )
    // The cursor is gone, the subscription ("all") is kept: the group replays cg-del-1 only.
    expect(await consumeAll('cg-del-1', 'deleter')).toEqual([0, 1])
    expect(await consumeAll('cg-del-2', 'deleter')).toEqual([])

    const removed = await http(broker, 'DELETE', '/api/v1/consumer-groups/deleter/queues/cg-del-2')
    expect(removed.body).toMatchObject({ deletedPartitions: 1, metadataDeleted: true })
    const described = await http(broker, 'GET', '/api/v1/consumer-groups/deleter')
    expect(Object.keys(described.body)).toEqual(['cg-del-1'])
  })
})

describe('POST /api/v1/consumer-groups/:group/queues/:queue/seek', () => {
  it('seeks by timestamp: replays exactly the messages created after it, in order', async () => {
    await pushMany(broker, 'seek-ts', 'p', 3)
    await sleep(100)
    const noted = new Date()
    await sleep(100)
    await pushMany(broker, 'seek-ts', 'p', 3, 3)
    expect(await consumeAll('seek-ts', 'replayer')).toEqual([0, 1, 2, 3, 4, 5])

    const response = await seek('replayer', 'seek-ts', { timestamp: noted.toISOString() })
    expect(response.status).toBe(200)
    expect(response.body).toEqual({
      success: true,
      consumerGroup: 'replayer',
      queueName: 'seek-ts',
      seekToEnd: false,
      targetTimestamp: noted.toISOString(),
      partitionsUpdated: 1,
    })
    expect(await consumeAll('seek-ts', 'replayer')).toEqual([3, 4, 5])
  })

  it('seeks to the epoch: replays everything, even for a group subscribed with subscriptionMode=new', async () => {
    await pushMany(broker, 'seek-epoch', 'p', 3)
    expect(numbers(await pop(broker, 'seek-epoch', { consumerGroup: 'newbie', subscriptionMode: 'new' }))).toEqual([])
    await pushMany(broker, 'seek-epoch', 'p', 2, 3)
    expect(await consumeAll('seek-epoch', 'newbie')).toEqual([3, 4])

    const response = await seek('newbie', 'seek-epoch', { timestamp: '1970-01-01T00:00:00Z' })
    expect(response.body).toMatchObject({ success: true, targetTimestamp: '1970-01-01T00:00:00.000Z' })
    expect(await consumerRow('seek-epoch', 'p', 'newbie')).toMatchObject({ cursor_position: 0, start_at: null })
    expect(await consumeAll('seek-epoch', 'newbie')).toEqual([0, 1, 2, 3, 4])
  })

  it('seeks to the end on every partition, including one the group never read, and releases its lease', async () => {
    await pushMany(broker, 'seek-end', 'read', 3)
    await pushMany(broker, 'seek-end', 'unread', 2)
    const held = await pop(broker, 'seek-end', { consumerGroup: 'skipper', batch: 1 }, 'read')
    expect(numbers(held)).toEqual([0])
    expect(await consumerRow('seek-end', 'unread', 'skipper')).toBeUndefined()

    const response = await seek('skipper', 'seek-end', { toEnd: true })
    expect(response.body).toEqual({
      success: true,
      consumerGroup: 'skipper',
      queueName: 'seek-end',
      seekToEnd: true,
      targetTimestamp: null,
      partitionsUpdated: 2,
    })
    expect(await consumerRow('seek-end', 'read', 'skipper')).toMatchObject({ cursor_position: 3, lease_id: null })
    expect(await consumerRow('seek-end', 'unread', 'skipper')).toMatchObject({ cursor_position: 2, lease_id: null })
    expect(await consumeAll('seek-end', 'skipper')).toEqual([])
    // Only what arrives after the seek is delivered.
    await pushMany(broker, 'seek-end', 'unread', 1, 10)
    expect(await consumeAll('seek-end', 'skipper')).toEqual([10])
    // Other groups are untouched.
    expect(await consumeAll('seek-end', 'bystander')).toHaveLength(6)
  })

  it('releases a held lease: the old lease can no longer ack, and the group gets the messages again', async () => {
    await pushMany(broker, 'seek-lease', 'p', 3)
    const held = await pop(broker, 'seek-lease', { consumerGroup: 'holder', batch: 3 })
    expect(numbers(held)).toEqual([0, 1, 2])

    await seek('holder', 'seek-lease', { timestamp: '1970-01-01T00:00:00Z' })
    const stale = await ack(broker, held.messages[0])
    expect(stale).toMatchObject({ success: false, error: 'Invalid or expired lease' })
    const again = await pop(broker, 'seek-lease', { consumerGroup: 'holder', batch: 3 })
    expect(numbers(again)).toEqual([0, 1, 2])
    expect(again.leaseId).not.toBe(held.leaseId)
  })

  it('clears failure counts and retry times but leaves DLQ entries alone', async () => {
    await configure(broker, 'seek-failures', { retryLimit: 5, retryDelay: 600_000 })
    await pushMany(broker, 'seek-failures', 'Default', 1)
    const first = await pop(broker, 'seek-failures', { consumerGroup: 'flaky' })
    await ack(broker, first.messages[0], { status: 'failed', error: 'boom' })
    // Held back by its 10-minute retry time.
    expect(await consumeAll('seek-failures', 'flaky')).toEqual([])

    await seek('flaky', 'seek-failures', { timestamp: '1970-01-01T00:00:00Z' })
    const again = await pop(broker, 'seek-failures', { consumerGroup: 'flaky' })
    expect(numbers(again)).toEqual([0])
    expect(again.messages[0].retryCount).toBe(0)
    await ack(broker, again.messages[0])

    await configure(broker, 'seek-dlq', { retryLimit: 0 })
    await pushMany(broker, 'seek-dlq', 'Default', 2)
    const doomed = await pop(broker, 'seek-dlq', { consumerGroup: 'dlq-group', batch: 1 })
    expect(await ack(broker, doomed.messages[0], { status: 'failed' })).toMatchObject({ success: true, dlq: true })
    await seek('dlq-group', 'seek-dlq', { timestamp: '1970-01-01T00:00:00Z' })
    const dlq = await http(broker, 'GET', '/api/v1/dlq?queue=seek-dlq&consumerGroup=dlq-group')
    expect(dlq.body.total).toBe(1)
    // The seek moved the cursor before the dead-lettered message, so it is delivered again.
    expect(await consumeAll('seek-dlq', 'dlq-group')).toEqual([0, 1])
  })

  it('moves queue mode too', async () => {
    await pushMany(broker, 'seek-queue-mode', 'p', 2)
    const body = await pop(broker, 'seek-queue-mode', { batch: 10 })
    await ackBatch(broker, body.messages)
    const response = await seek('__QUEUE_MODE__', 'seek-queue-mode', { timestamp: '1970-01-01T00:00:00Z' })
    expect(response.body).toMatchObject({ success: true, partitionsUpdated: 1 })
    expect(numbers(await pop(broker, 'seek-queue-mode', { batch: 10 }))).toEqual([0, 1])
  })

  it.each([
    [{}, "Must specify either 'toEnd': true or 'timestamp'"],
    [{ toEnd: false }, "Must specify either 'toEnd': true or 'timestamp'"],
    [{ timestamp: null }, "Must specify either 'toEnd': true or 'timestamp'"],
    [{ timestamp: 'yesterday' }, 'timestamp: must be an ISO 8601 timestamp'],
    [{ timestamp: 1700000000 }, 'timestamp: must be an ISO 8601 timestamp'],
    [{ toEnd: 'yes' }, 'toEnd: must be a boolean'],
    [[], 'request body must be a JSON object'],
  ])('answers 400 for body %j', async (body, error) => {
    await pushMany(broker, 'seek-bad', 'p', 1)
    const response = await seek('g', 'seek-bad', body)
    expect(response.status).toBe(400)
    expect(response.body).toEqual({ error, code: 'QUEEN_ERR_VALIDATION' })
  })

  it('answers 400 without a body, and 404 for an unknown queue', async () => {
    const bodiless = await http(broker, 'POST', '/api/v1/consumer-groups/g/queues/seek-bad/seek')
    expect(bodiless.status).toBe(400)
    expect(bodiless.body.error).toBe("Must specify either 'toEnd': true or 'timestamp'")
    const missing = await seek('g', 'no-such-queue', { toEnd: true })
    expect(missing.status).toBe(404)
    expect(missing.body).toEqual({ error: 'Queue not found', code: 'QUEEN_ERR_QUEUE_NOT_FOUND' })
    expect(await broker.db.query("SELECT 1 FROM queen.queues WHERE name = 'no-such-queue'")).toMatchObject({
      rowCount: 0,
    })
  })
})

describe('POST /api/v1/consumer-groups/:group/queues/:queue/partitions/:partition/seek', () => {
  it('seeks one partition to its end, reading no body', async () => {
    await pushMany(broker, 'pseek', 'a', 3)
    await pushMany(broker, 'pseek', 'b', 2)
    // Any body is ignored, even one that is not JSON.
    const response = await http(
      broker,
      'POST',
      '/api/v1/consumer-groups/pg/queues/pseek/partitions/a/seek',
      'not json',
      { 'content-type': 'text/plain' },
    )
    expect(response.status).toBe(200)
    expect(response.body).toEqual({
      success: true,
      consumerGroup: 'pg',
      queueName: 'pseek',
      partitionName: 'a',
      updated: true,
      cursorMovedTo: 3,
    })
    expect(await consumeAll('pseek', 'pg')).toEqual([0, 1])
  })

  it('answers 404 Partition not found for an unknown partition or queue', async () => {
    await pushMany(broker, 'pseek-404', 'a', 1)
    for (const path of ['pseek-404/partitions/nope', 'no-such-queue/partitions/a']) {
      const response = await http(broker, 'POST', `/api/v1/consumer-groups/g/queues/${path}/seek`)
      expect(response.status).toBe(404)
      expect(response.body).toEqual({ error: 'Partition not found', code: 'QUEEN_ERR_PARTITION_NOT_FOUND' })
    }
    expect(await consumerRow('pseek-404', 'nope', 'g')).toBeUndefined()
  })
})

describe('seek and parked pops', () => {
  it('answers a parked pop of the group at once when a seek makes messages deliverable', async () => {
    // With a 60 s re-check interval only the seek's wake-up can answer this pop quickly.
    const slow = await startTestBroker({
      label: 'seek-wake',
      config: { popWait: WAKE_ONLY_POP_WAIT },
    })
    try {
      await pushMany(slow, 'wake-seek', 'p', 2)
      const body = await pop(slow, 'wake-seek', { consumerGroup: 'w', batch: 10 })
      await ackBatch(slow, body.messages)
      const started = Date.now()
      const parked = pop(slow, 'wake-seek', { consumerGroup: 'w', batch: 10, wait: true, timeout: 30_000 })
      await sleep(200)
      expect(slow.services.waiters.parked).toBe(1)
      const response = await http(slow, 'POST', '/api/v1/consumer-groups/w/queues/wake-seek/seek', {
        timestamp: '1970-01-01T00:00:00Z',
      })
      expect(response.status).toBe(200)
      expect(numbers(await parked)).toEqual([0, 1])
      expect(Date.now() - started).toBeLessThan(10_000)
    } finally {
      await slow.close()
    }
  })
})
