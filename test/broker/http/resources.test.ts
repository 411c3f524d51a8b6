import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dropTestDatabase } from '../../support/database.js'
import { http, startTestBroker, type TestBroker } from '../../support/broker.js'
import { ack, ackBatch, configure, numbers, pop, pushMany, sleep } from '../../support/queen.js'

let broker: TestBroker
beforeAll(async () => {
  broker = await startTestBroker({ label: 'resources' })
})
afterAll(async () => {
  await broker.close()
})

const DEFAULTS = {
  priority: 0,
  leaseTime: 300,
  retryLimit: 3,
  retryDelay: 1000,
  maxSize: 0,
  maxPartitions: 0,
  deadLetterQueue: false,
  delayedProcessing: 0,
  windowBuffer: 0,
  dedupWindowSeconds: 3600,
  retentionSeconds: 0,
  completedRetentionSeconds: 0,
  retentionEnabled: false,
  encryptionEnabled: false,
  maxWaitTimeSeconds: 0,
}

describe('POST /api/v1/configure', () => {
  it('creates the queue and its Default partition, and answers the full option set', async () => {
    const response = await http(broker, 'POST', '/api/v1/configure', {
      queue: 'conf.orders',
      options: { leaseTime: 60, priority: 5, ttl: 3600 },
    })
    expect(response.status).toBe(200)
    expect(response.body).toMatchObject({
      configured: true,
      queue: 'conf.orders',
      namespace: 'conf',
      task: 'orders',
      // Legacy keys are echoed as sent (the JS client checks every option it sent) but not stored.
      options: { ...DEFAULTS, leaseTime: 60, priority: 5, ttl: 3600 },
      ignored: ['ttl'],
    })
    const partitions = await broker.db.query('SELECT id, name FROM queen.partitions WHERE queue_id = $1', [
      response.body.queueId,
    ])
    expect(partitions.rows).toEqual([{ id: response.body.partitionId, name: 'Default' }])
    const stored = await http(broker, 'GET', '/api/v1/resources/queues/conf.orders')
    expect(stored.body.options).toEqual({ ...DEFAULTS, leaseTime: 60, priority: 5 })
  })

  it('is a full replace: options left out return to their defaults', async () => {
    await configure(broker, 'conf-replace', { dedupWindowSeconds: 10, retryLimit: 9 })
    const second = await http(broker, 'POST', '/api/v1/configure', {
      queue: 'conf-replace',
      namespace: 'ns',
      options: { leaseTime: 90 },
    })
    expect(second.body.options).toEqual({ ...DEFAULTS, leaseTime: 90 })
    const described = await http(broker, 'GET', '/api/v1/resources/queues/conf-replace')
    expect(described.body.options).toEqual({ ...DEFAULTS, leaseTime: 90 })
    expect(described.body.namespace).toBe('ns')
    // Every accepted option takes effect: the new leaseTime governs the next lease.
    await pushMany(broker, 'conf-replace', 'Default', 1)
    await pop(broker, 'conf-replace')
    const lease = await broker.db.query(
      "SELECT extract(epoch FROM c.lease_expires_at - now())::int AS seconds FROM queen.consumers c JOIN queen.queues q ON q.id = c.queue_id WHERE q.name = 'conf-replace'",
    )
    expect(lease.rows[0].seconds).toBeGreaterThan(80)
    expect(lease.rows[0].seconds).toBeLessThanOrEqual(90)
  })
})

describe('queue resources', () => {
  it('lists queues with counts and honours search, namespace and limit', async () => {
    await pushMany(broker, 'list.alpha', 'a', 3)
    await pushMany(broker, 'list.beta', 'b', 1)
    const all = await http(broker, 'GET', '/api/v1/resources/queues?search=LIST.')
    expect(all.status).toBe(200)
    const names = all.body.queues.map((queue: any) => queue.name).sort()
    expect(names).toEqual(['list.alpha', 'list.beta'])
    const alpha = all.body.queues.find((queue: any) => queue.name === 'list.alpha')
    expect(alpha).toMatchObject({
      namespace: 'list',
      task: 'alpha',
      partitions: 1,
      messages: { total: 3, pending: 3, processing: 0 },
    })
    const limited = await http(broker, 'GET', '/api/v1/resources/queues?namespace=list&limit=1')
    expect(limited.body.queues).toHaveLength(1)
  })

  it('describes one queue with per-partition status counters', async () => {
    await pushMany(broker, 'describe-me', 'p', 4)
    const body = await pop(broker, 'describe-me', { batch: 2 })
    await ack(broker, body.messages[0])
    const described = await http(broker, 'GET', '/api/v1/resources/queues/describe-me')
    expect(described.status).toBe(200)
    expect(described.body.partitions).toHaveLength(1)
    expect(described.body.partitions[0]).toMatchObject({
      name: 'p',
      stats: { total: 4, completed: 1, processing: 1, pending: 2, failed: 0, deadLetter: 0 },
    })
    expect(described.body.totals).toEqual({
      total: 4,
      pending: 2,
      processing: 1,
      completed: 1,
      failed: 0,
      deadLetter: 0,
    })
    const missing = await http(broker, 'GET', '/api/v1/resources/queues/no-such-queue')
    expect(missing.status).toBe(404)
    expect(missing.body).toMatchObject({ error: 'Queue not found', code: 'QUEEN_ERR_QUEUE_NOT_FOUND' })
  })

  it('deletes a queue with everything under it and answers parked pops on it', async () => {
    await configure(broker, 'doomed', { retryLimit: 0 })
    await pushMany(broker, 'doomed', 'p', 3)
    const body = await pop(broker, 'doomed')
    await ack(broker, body.messages[0], { status: 'failed' })
    await pop(broker, 'doomed', { consumerGroup: 'g' })
    const parked = pop(broker, 'doomed', {
      wait: true,
      timeout: 20_000,
      consumerGroup: 'late',
      subscriptionMode: 'new',
    })
    await sleep(100)
    const deleted = await http(broker, 'DELETE', '/api/v1/resources/queues/doomed')
    expect(deleted.body).toEqual({ deleted: true, queue: 'doomed', existed: true })
    expect((await parked).messages).toEqual([])
    for (const table of [
      'queues',
      'partitions',
      'messages',
      'consumers',
      'dead_letters',
      'subscriptions',
      'message_states',
    ]) {
      const rows = await broker.db.query(`SELECT count(*)::int AS n FROM queen.${table}`)
      const orphan = await broker.db.query(
        table === 'queues'
          ? "SELECT count(*)::int AS n FROM queen.queues WHERE name = 'doomed'"
          : table === 'partitions' || table === 'subscriptions' || table === 'consumers' || table === 'dead_letters'
            ? `SELECT count(*)::int AS n FROM queen.${table} t WHERE NOT EXISTS (SELECT 1 FROM queen.queues q WHERE q.id = t.queue_id)`
            : `SELECT count(*)::int AS n FROM queen.${table} t WHERE NOT EXISTS (SELECT 1 FROM queen.partitions p WHERE p.id = t.partition_id)`,
      )
      expect(orphan.rows[0].n, `${table} left behind (${rows.rows[0].n} rows in total)`).toBe(0)
    }
    const again = await http(broker, 'DELETE', '/api/v1/resources/queues/doomed')
    expect(again.body).toEqual({ deleted: true, queue: 'doomed', existed: false })
  })
})

describe('GET /api/v1/dlq', () => {
  it('lists dead letters newest first with filters, pagination and the total', async () => {
    await configure(broker, 'dlq-list', { retryLimit: 0 })
    await pushMany(broker, 'dlq-list', 'p1', 2)
    await pushMany(broker, 'dlq-list', 'p2', 1, 10)
    for (const partition of ['p1', 'p1', 'p2']) {
      const body = await pop(broker, 'dlq-list', { batch: 1 }, partition)
      await ack(broker, body.messages[0], { status: 'failed', error: `failed on ${partition}` })
    }
    const all = await http(broker, 'GET', '/api/v1/dlq?queue=dlq-list')
    expect(all.body.total).toBe(3)
    expect(all.body.pagination).toEqual({ limit: 100, offset: 0 })
    expect(all.body.messages.map((message: any) => message.data.n)).toEqual([10, 1, 0])
    expect(Object.keys(all.body.messages[0]).sort()).toEqual(
      [
        'consumerGroup',
        'createdAt',
        'data',
        'errorMessage',
        'failedAt',
        'id',
        'partition',
        'partitionId',
        'producerSub',
        'queue',
        'retryCount',
        'transactionId',
      ].sort(),
    )
    const p1 = await http(broker, 'GET', '/api/v1/dlq?queue=dlq-list&partition=p1&limit=1&offset=1')
    expect(p1.body.total).toBe(2)
    expect(p1.body.messages.map((message: any) => message.data.n)).toEqual([0])
    const otherGroup = await http(broker, 'GET', '/api/v1/dlq?queue=dlq-list&consumerGroup=nobody')
    expect(otherGroup.body).toMatchObject({ messages: [], total: 0 })
  })
})

describe('GET /api/v1/resources/queues/:queue/depth', () => {
  it("counts each partition's unsettled messages for a group, live, and queue mode's without one", async () => {
    await pushMany(broker, 'depth-q', 'a', 3)
    await pushMany(broker, 'depth-q', 'b', 4)
    await pushMany(broker, 'depth-q', 'c', 5)
    // Group g: of a, three delivered and two acked (one in flight); all of b acked; c never read.
    const fromA = await pop(broker, 'depth-q', { batch: 3, consumerGroup: 'g', wait: false }, 'a')
    expect(fromA.messages).toHaveLength(3)
    await ackBatch(broker, fromA.messages.slice(0, 2))
    const fromB = await pop(broker, 'depth-q', { batch: 4, consumerGroup: 'g', wait: false }, 'b')
    expect(fromB.messages).toHaveLength(4)
    await ackBatch(broker, fromB.messages)
    // Queue mode: of a, three delivered and one acked.
    const queueMode = await pop(broker, 'depth-q', { batch: 3, wait: false }, 'a')
    expect(queueMode.messages).toHaveLength(3)
    await ack(broker, queueMode.messages[0])

    const g = await http(broker, 'GET', '/api/v1/resources/queues/depth-q/depth?group=g')
    expect(g.status).toBe(200)
    expect(g.body).toEqual({
      queue: 'depth-q',
      group: 'g',
      pending: 6,
      processing: 1,
      ready: 5,
      partitionsPending: 2,
      partitionsReady: 1,
      conflation: false,
      effectivePending: 6,
      effectiveReady: 5,
      partitions: [
        { partition: 'a', pending: 1, processing: 1, ready: 0 },
        { partition: 'b', pending: 0, processing: 0, ready: 0 },
        { partition: 'c', pending: 5, processing: 0, ready: 5 },
      ],
    })
    // No group: queue mode's cursor where it has one (a), else the slowest group's (b), else every message (c).
    const none = await http(broker, 'GET', '/api/v1/resources/queues/depth-q/depth')
    expect(none.status).toBe(200)
    expect(none.body).toMatchObject({ group: null, pending: 7, processing: 2, ready: 5, partitionsPending: 2 })
    expect(none.body.partitions).toEqual([
      { partition: 'a', pending: 2, processing: 2, ready: 0 },
      { partition: 'b', pending: 0, processing: 0, ready: 0 },
      { partition: 'c', pending: 5, processing: 0, ready: 5 },
    ])
    // A group that never read the queue owes all of it.
    const fresh = await http(broker, 'GET', '/api/v1/resources/queues/depth-q/depth?group=fresh')
    expect(fresh.body).toMatchObject({ group: 'fresh', pending: 12, processing: 0, ready: 12, partitionsPending: 3 })
    // Acking the in-flight one empties a for g; nothing else moves.
    await ack(broker, fromA.messages[2])
    const after = await http(broker, 'GET', '/api/v1/resources/queues/depth-q/depth?group=g')
    expect(after.body).toMatchObject({ pending: 5, processing: 0, ready: 5, partitionsPending: 1 })
  })

  it('measures a group with a subscription start from it', async () => {
    await pushMany(broker, 'depth-new', 'p', 2)
    // A group created with mode new on an empty pop starts after the two existing messages.
    await pop(broker, 'depth-new', { consumerGroup: 'depth-late', subscriptionMode: 'new', wait: false })
    await sleep(5)
    await pushMany(broker, 'depth-new', 'p', 3, 2)
    const late = await http(broker, 'GET', '/api/v1/resources/queues/depth-new/depth?group=depth-late')
    expect(late.body).toMatchObject({ pending: 3, partitions: [{ partition: 'p', pending: 3 }] })
  })

  it('answers 404 for an unknown queue and 400 for a bad group', async () => {
    const missing = await http(broker, 'GET', '/api/v1/resources/queues/depth-none/depth')
    expect(missing.status).toBe(404)
    expect(missing.body).toMatchObject({ error: 'Queue not found', code: 'QUEEN_ERR_QUEUE_NOT_FOUND' })
    await pushMany(broker, 'depth-bad', 'p', 1)
    const bad = await http(broker, 'GET', '/api/v1/resources/queues/depth-bad/depth?group=a%2Fb')
    expect(bad.status).toBe(400)
    expect(bad.body.error).toContain('group')
  })
})

describe('consumer groups', () => {
  it('deletes a group so that re-creating it replays from its new subscription', async () => {
    await pushMany(broker, 'cg-replay', 'p', 3)
    const first = await pop(broker, 'cg-replay', { consumerGroup: 'replayer', batch: 10, autoAck: true })
    expect(numbers(first)).toEqual([0, 1, 2])
    expect((await pop(broker, 'cg-replay', { consumerGroup: 'replayer' })).messages).toEqual([])
    const deleted = await http(broker, 'DELETE', '/api/v1/consumer-groups/replayer')
    expect(deleted.body).toEqual({
      success: true,
      consumerGroup: 'replayer',
      deletedPartitions: 1,
      metadataDeleted: true,
    })
    const replay = await pop(broker, 'cg-replay', { consumerGroup: 'replayer', batch: 10 })
    expect(numbers(replay)).toEqual([0, 1, 2])
  })

  it('rewrites the subscription start of a group for partitions it has not read yet', async () => {
    await pushMany(broker, 'cg-sub', 'old', 2)
    // First contact records "new": nothing old is delivered.
    expect((await pop(broker, 'cg-sub', { consumerGroup: 'late', subscriptionMode: 'new' })).messages).toEqual([])
    const response = await http(broker, 'POST', '/api/v1/consumer-groups/late/subscription', {
      subscriptionTimestamp: '2000-01-01T00:00:00Z',
    })
    expect(response.body).toMatchObject({
      success: true,
      consumerGroup: 'late',
      newTimestamp: '2000-01-01T00:00:00.000Z',
      rowsUpdated: 1,
    })
    // A partition the group never read now starts at the new (older) start.
    await pushMany(broker, 'cg-sub', 'fresh', 1, 50)
    const fresh = await pop(broker, 'cg-sub', { consumerGroup: 'late', batch: 10 }, 'fresh')
    expect(numbers(fresh)).toEqual([50])
  })
})

describe('POST /api/v1/traces', () => {
  it('records a trace on an existing message and refuses an unknown one', async () => {
    await pushMany(broker, 'traced', 'p', 1)
    const body = await pop(broker, 'traced')
    const message = body.messages[0]
    const recorded = await http(broker, 'POST', '/api/v1/traces', {
      transactionId: message.transactionId,
      partitionId: message.partitionId,
      data: { step: 'validated' },
      consumerGroup: null,
      traceNames: ['order-flow', 'checkout'],
    })
    expect(recorded.body).toEqual({ success: true, traceId: expect.stringMatching(/^[0-9a-f-]{36}$/) })
    const rows = await broker.db.query(
      'SELECT t.event_type, t.consumer_group, t.data, array_agg(n.trace_name ORDER BY n.trace_name) AS names FROM queen.traces t JOIN queen.trace_names n ON n.trace_id = t.id WHERE t.id = $1 GROUP BY t.id',
      [recorded.body.traceId],
    )
    expect(rows.rows[0]).toEqual({
      event_type: 'info',
      consumer_group: '__QUEUE_MODE__',
      data: { step: 'validated' },
      names: ['checkout', 'order-flow'],
    })
    const unknown = await http(broker, 'POST', '/api/v1/traces', {
      transactionId: 'nope',
      partitionId: message.partitionId,
      data: {},
    })
    expect(unknown.body).toEqual({ success: false, error: 'Message not found' })
  })
})

describe('health', () => {
  it('answers /health with a database round trip and /health/live without one', async () => {
    const own = await startTestBroker({ label: 'health' })
    try {
      const healthy = await http(own, 'GET', '/health')
      expect(healthy.status).toBe(200)
      expect(healthy.body).toMatchObject({
        status: 'healthy',
        database: 'connected',
        server: 'queenctl',
        server_id: 'test-broker',
      })
      // The database disappears: readiness fails, liveness does not.
      await dropTestDatabase(own.database)
      const unhealthy = await http(own, 'GET', '/health')
      expect(unhealthy.status).toBe(503)
      expect(unhealthy.body).toMatchObject({ status: 'unhealthy', database: 'disconnected' })
      const live = await http(own, 'GET', '/health/live')
      expect(live.status).toBe(200)
      expect(live.body).toEqual({ status: 'alive', uptime_s: expect.any(Number) })
    } finally {
      await own.close()
    }
  })
})
