/**
 * Every administrative call of the real Queen JavaScript client: queue create/configure/delete on
 * `queue()`, consumer-group management on `Queen`, and every method of the `Admin` facet (`queen.admin`),
 * asserted on what the client hands back.
 */
import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { startTestBroker, type TestBroker } from '../support/broker.js'
import { closeQueen, describeWithClient, openQueen, runConsumer, sleep, storedMessages } from './client.js'

const KEY = randomBytes(32).toString('hex')

/** Every option the client documents (README Part 11), plus the broker's own, none at its default. */
const ALL_OPTIONS = {
  leaseTime: 120,
  retryLimit: 5,
  retryDelay: 2500,
  dlqAfterMaxRetries: true,
  priority: 7,
  delayedProcessing: 3,
  windowBuffer: 4,
  maxSize: 5000,
  retentionSeconds: 86_400,
  completedRetentionSeconds: 3600,
  ttl: 7200,
  encryptionEnabled: true,
  deadLetterQueue: true,
  retentionEnabled: true,
  maxWaitTimeSeconds: 600,
  maxPartitions: 50,
  dedupWindowSeconds: 1800,
}

/** The options the broker stores (everything above but the two legacy keys). */
const { ttl: _ttl, dlqAfterMaxRetries: _dlq, ...STORED_OPTIONS } = ALL_OPTIONS

describeWithClient('admin through the client', () => {
  let broker: TestBroker
  let queen: any
  let admin: any
  beforeAll(async () => {
    broker = await startTestBroker({ label: 'compat_admin', config: { encryptionKey: KEY }, durable: {} })
    queen = await openQueen(broker)
    admin = queen.admin
  })
  afterAll(async () => {
    await closeQueen(queen)
    await broker?.close()
  })

  async function pushNumbers(queue: string, count: number, partition = 'Default'): Promise<any[]> {
    const results = await queen
      .queue(queue)
      .partition(partition)
      .push(Array.from({ length: count }, (_, n) => ({ data: { n } })))
    expect(results.map((r: any) => r.status)).toEqual(Array(count).fill('queued'))
    return results
  }

  async function consumeAll(queue: string, count: number, group?: string): Promise<any[]> {
    const seen: any[] = []
    const builder = () => (group ? queen.queue(queue).group(group) : queen.queue(queue))
    const { reached, error } = await runConsumer(
      (signal) =>
        builder()
          .batch(10)
          .timeoutMillis(500)
          .consume(
            (messages: any[]) => {
              seen.push(...messages)
            },
            { signal },
          ),
      () => seen.length >= count,
    )
    expect(error).toBeUndefined()
    expect(reached).toBe(true)
    return seen
  }

  it('queue().config(all options).create() echoes every option it sent in options, unchanged', async () => {
    const result = await queen.queue('adm-options').namespace('adm-ns').task('adm-task').config(ALL_OPTIONS).create()
    expect(result).toMatchObject({ configured: true, queue: 'adm-options', namespace: 'adm-ns', task: 'adm-task' })
    for (const [key, value] of Object.entries(ALL_OPTIONS)) {
      expect(result.options?.[key], `options.${key} in ${JSON.stringify(result.options)}`).toEqual(value)
    }
  })

  it('admin.getQueue() shows the configured options, namespace and task', async () => {
    await queen.queue('adm-options-read').namespace('adm-ns').task('adm-task').config(ALL_OPTIONS).create()
    const queue = await admin.getQueue('adm-options-read')
    expect(queue).toMatchObject({ name: 'adm-options-read', namespace: 'adm-ns', task: 'adm-task' })
    expect(queue.options).toMatchObject(STORED_OPTIONS)
    expect(queue.partitions.map((p: any) => p.name)).toEqual(['Default'])
  })

  it('create() without config() sends the client defaults; a later create() replaces every option', async () => {
    const first = await queen.queue('adm-replace').config({ leaseTime: 60, priority: 3, retryDelay: 10 }).create()
    expect(first.options).toMatchObject({ leaseTime: 60, priority: 3, retryDelay: 10, retryLimit: 3 })
    const second = await queen.queue('adm-replace').create()
    expect(second.options).toMatchObject({
      leaseTime: 300,
      retryLimit: 3,
      priority: 0,
      delayedProcessing: 0,
      windowBuffer: 0,
      maxSize: 0,
      retentionSeconds: 0,
      completedRetentionSeconds: 0,
      encryptionEnabled: false,
      retryDelay: 1000,
    })
  })

  it('queue().delete() removes the queue and its messages', async () => {
    await pushNumbers('adm-delete', 3)
    const result = await queen.queue('adm-delete').delete()
    expect(result).toMatchObject({ deleted: true, queue: 'adm-delete', existed: true })
    expect(await storedMessages(broker.db, 'adm-delete')).toEqual([])
    await expect(admin.getQueue('adm-delete')).rejects.toThrow()
    expect((await admin.listQueues()).queues.map((q: any) => q.name)).not.toContain('adm-delete')
    expect(await queen.queue('adm-delete').delete()).toMatchObject({ deleted: true, existed: false })
  })

  it('admin.listQueues() lists queues and honours search and limit', async () => {
    await pushNumbers('adm-list-a', 1)
    await pushNumbers('adm-list-b', 2)
    const all = await admin.listQueues()
    const names = all.queues.map((q: any) => q.name)
    expect(names).toEqual(expect.arrayContaining(['adm-list-a', 'adm-list-b']))
    const searched = await admin.listQueues({ search: 'adm-list-' })
    expect(searched.queues.map((q: any) => q.name).sort()).toEqual(['adm-list-a', 'adm-list-b'])
    expect((await admin.listQueues({ search: 'adm-list-', limit: 1 })).queues).toHaveLength(1)
  })

  it('admin.getOverview(), getNamespaces() and getTasks() count the queues', async () => {
    await queen.queue('adm-tags').namespace('adm-tags-ns').task('adm-tags-task').create()
    await pushNumbers('adm-tags', 2)
    await admin.refreshConsumerStats()
    const overview = await admin.getOverview()
    expect(overview.queues).toBeGreaterThanOrEqual(1)
    expect(overview.messages.total).toBeGreaterThanOrEqual(2)
    const namespaces = await admin.getNamespaces()
    expect(namespaces.namespaces.find((n: any) => n.namespace === 'adm-tags-ns')).toMatchObject({ queues: 1 })
    const tasks = await admin.getTasks()
    expect(tasks.tasks.find((t: any) => t.task === 'adm-tags-task')).toMatchObject({ queues: 1 })
  })

  it('admin.clearQueue() deletes every message and keeps the queue', async () => {
    await pushNumbers('adm-clear', 3, 'p1')
    await pushNumbers('adm-clear', 2, 'p2')
    const result = await admin.clearQueue('adm-clear')
    expect(result).toMatchObject({ success: true, deletedMessages: 5 })
    expect(await storedMessages(broker.db, 'adm-clear')).toEqual([])
    expect((await admin.getQueue('adm-clear')).name).toBe('adm-clear')
  })

  it('admin.clearQueue(name, partition) clears only that partition', async () => {
    await pushNumbers('adm-clear-part', 3, 'p1')
    await pushNumbers('adm-clear-part', 2, 'p2')
    const result = await admin.clearQueue('adm-clear-part', 'p1')
    expect(result).toMatchObject({ success: true, deletedMessages: 3 })
    expect((await storedMessages(broker.db, 'adm-clear-part')).map((row) => row.partition)).toEqual(['p2', 'p2'])
  })

  it('admin.getPartitions() lists the partitions of a queue', async () => {
    await pushNumbers('adm-partitions', 1, 'part-x')
    await pushNumbers('adm-partitions', 1, 'part-y')
    const result = await admin.getPartitions({ queue: 'adm-partitions' })
    const text = JSON.stringify(result)
    expect(text).toContain('part-x')
    expect(text).toContain('part-y')
  })

  it('admin.listMessages() and getMessage() show pushed messages', async () => {
    const pushed = await pushNumbers('adm-messages', 2)
    const listed = await admin.listMessages({ queue: 'adm-messages' })
    expect(listed.messages.map((m: any) => m.transactionId).sort()).toEqual(
      pushed.map((r: any) => r.transaction_id).sort(),
    )
    const one = listed.messages.find((m: any) => m.transactionId === pushed[0].transaction_id)
    expect(one).toMatchObject({ id: pushed[0].message_id, queue: 'adm-messages', partition: 'Default' })
    const message = await admin.getMessage(one.partitionId, one.transactionId)
    expect(message).toMatchObject({
      id: pushed[0].message_id,
      transactionId: pushed[0].transaction_id,
      queue: 'adm-messages',
      payload: { n: 0 },
    })
  })

  it('admin.deleteMessage() deletes one message', async () => {
    const pushed = await pushNumbers('adm-delete-message', 2)
    const partitionId = pushed[0].partition_id
    const result = await admin.deleteMessage(partitionId, pushed[0].transaction_id)
    expect(result).toMatchObject({ success: true })
    expect((await storedMessages(broker.db, 'adm-delete-message')).map((row) => row.id)).toEqual([pushed[1].message_id])
    await expect(admin.getMessage(partitionId, pushed[0].transaction_id)).rejects.toThrow()
  })

  it('admin.moveMessageToDLQ() dead-letters a message and retryMessage() makes it deliverable again', async () => {
    const [pushed] = await pushNumbers('adm-dlq', 1)
    const moved = await admin.moveMessageToDLQ(pushed.partition_id, pushed.transaction_id)
    expect(moved).toMatchObject({ success: true, dlq: true })
    const dlq = await queen.queue('adm-dlq').dlq().get()
    expect(dlq.messages.map((m: any) => m.transactionId)).toEqual([pushed.transaction_id])
    expect(await queen.queue('adm-dlq').wait(false).pop()).toEqual([])

    const retried = await admin.retryMessage(pushed.partition_id, pushed.transaction_id)
    expect(retried).toMatchObject({ success: true })
    expect((await queen.queue('adm-dlq').dlq().get()).messages).toEqual([])
    const popped = await queen.queue('adm-dlq').wait(false).pop()
    expect(popped.map((m: any) => m.transactionId)).toEqual([pushed.transaction_id])
  })

  it('admin trace reads: getTracesForMessage(), getTracesByName(), getTraceNames()', async () => {
    await pushNumbers('adm-traces', 1)
    const [message] = await consumeAll('adm-traces', 1)
    // The message was consumed and acked; traces can still be written for it by id.
    const { reached } = await runConsumer(
      async (signal) => {
        await pushNumbers('adm-traces', 1)
        await queen
          .queue('adm-traces')
          .timeoutMillis(500)
          .consume(
            async ([m]: any[]) => {
              await m.trace({ traceName: 'adm-trace-name', data: { text: 'second' } })
            },
            { signal },
          )
      },
      async () => (await admin.getTraceNames()).trace_names.some((n: any) => n.trace_name === 'adm-trace-name'),
    )
    expect(reached).toBe(true)
    const byName = await admin.getTracesByName('adm-trace-name')
    expect(byName.traces).toHaveLength(1)
    expect(byName.traces[0]).toMatchObject({ queue_name: 'adm-traces', data: { text: 'second' } })
    const forMessage = await admin.getTracesForMessage(byName.traces[0].partition_id, byName.traces[0].transaction_id)
    expect(forMessage.traces.map((t: any) => t.data)).toEqual([{ text: 'second' }])
    expect((await admin.getTracesForMessage(message.partitionId, message.transactionId)).traces).toEqual([])
  })

  it('admin.getStatus(), getQueueStats(), getQueueDetail() and getAnalytics() describe the queues', async () => {
    await pushNumbers('adm-status', 3, 'sp')
    await admin.refreshConsumerStats()
    const status = await admin.getStatus()
    expect(status).toHaveProperty('messages')
    expect(Array.isArray(status.queues)).toBe(true)
    const stats = await admin.getQueueStats()
    expect(stats.queues.find((q: any) => q.name === 'adm-status')).toMatchObject({ partitions: 1 })
    const detail = await admin.getQueueDetail('adm-status')
    expect(detail.queue).toMatchObject({ name: 'adm-status' })
    expect(detail.partitions.map((p: any) => p.name)).toEqual(['sp'])
    expect(detail.totals.total).toBe(3)
    const analytics = await admin.getAnalytics()
    expect(Array.isArray(analytics.dataPoints)).toBe(true)
  })

  it('admin consumer-group views: listConsumerGroups(), getConsumerGroup(), getLaggingConsumers(), refreshConsumerStats()', async () => {
    await pushNumbers('adm-groups', 3)
    await consumeAll('adm-groups', 3, 'adm-g1')
    await pushNumbers('adm-groups', 1)
    expect(await admin.refreshConsumerStats()).toBeTypeOf('object')
    const groups = await admin.listConsumerGroups()
    expect(Array.isArray(groups)).toBe(true)
    const row = groups.find((g: any) => g.name === 'adm-g1' && g.queueName === 'adm-groups')
    expect(row).toMatchObject({ totalLag: 1 })
    const group = await admin.getConsumerGroup('adm-g1')
    expect(group['adm-groups'].partitions.map((p: any) => p.partition)).toEqual(['Default'])
    const lagging = await admin.getLaggingConsumers(0)
    expect(Array.isArray(lagging)).toBe(true)
  })

  it('admin.seekConsumerGroup() moves a group to the end or back to a timestamp', async () => {
    await pushNumbers('adm-seek', 3)
    const toEnd = await admin.seekConsumerGroup('adm-seek-g', 'adm-seek', { toEnd: true })
    expect(toEnd).toMatchObject({ success: true })
    expect(await queen.queue('adm-seek').group('adm-seek-g').batch(10).wait(false).pop()).toEqual([])
    const back = await admin.seekConsumerGroup('adm-seek-g', 'adm-seek', { timestamp: '2000-01-01T00:00:00.000Z' })
    expect(back).toMatchObject({ success: true })
    const again = await queen.queue('adm-seek').group('adm-seek-g').batch(10).wait(false).pop()
    expect(again.map((m: any) => m.data.n)).toEqual([0, 1, 2])
  })

  it('admin.deleteConsumerGroupForQueue() resets a group on one queue', async () => {
    await pushNumbers('adm-group-del-q', 2)
    await consumeAll('adm-group-del-q', 2, 'adm-g-del')
    const result = await admin.deleteConsumerGroupForQueue('adm-g-del', 'adm-group-del-q')
    expect(result).toMatchObject({ success: true })
    const again = await queen.queue('adm-group-del-q').group('adm-g-del').batch(10).wait(false).pop()
    expect(again.map((m: any) => m.data.n)).toEqual([0, 1])
  })

  it('queen.deleteConsumerGroup() removes a group everywhere', async () => {
    await pushNumbers('adm-cg-del', 2)
    await consumeAll('adm-cg-del', 2, 'adm-g-gone')
    const result = await queen.deleteConsumerGroup('adm-g-gone')
    expect(result).toMatchObject({ success: true })
    const groups = await admin.listConsumerGroups()
    expect(groups.some((g: any) => g.name === 'adm-g-gone')).toBe(false)
    const again = await queen.queue('adm-cg-del').group('adm-g-gone').batch(10).wait(false).pop()
    expect(again.map((m: any) => m.data.n)).toEqual([0, 1])
  })

  it('queen.deleteConsumerGroup(group, false) keeps the subscription', async () => {
    await pushNumbers('adm-cg-keep', 1)
    await sleep(50)
    expect(await queen.queue('adm-cg-keep').group('adm-g-keep').subscriptionMode('new').wait(false).pop()).toEqual([])
    const result = await queen.deleteConsumerGroup('adm-g-keep', false)
    expect(result).toMatchObject({ success: true })
    // The subscription ("new", recorded at first contact) survives: the backlog is still skipped.
    expect(await queen.queue('adm-cg-keep').group('adm-g-keep').batch(10).wait(false).pop()).toEqual([])
  })

  it('queen.updateConsumerGroupTimestamp() moves the start of a group on partitions it has not read', async () => {
    await pushNumbers('adm-cg-ts', 1, 'probe')
    await pushNumbers('adm-cg-ts', 2, 'unread')
    await sleep(50)
    // First contact, on one partition only: the group subscribes as "new" (now), skipping the backlog.
    expect(
      await queen.queue('adm-cg-ts').partition('probe').group('adm-g-ts').subscriptionMode('new').wait(false).pop(),
    ).toEqual([])
    expect(
      await queen.queue('adm-cg-ts').partition('probe').group('adm-g-ts-ctl').subscriptionMode('new').wait(false).pop(),
    ).toEqual([])
    const result = await queen.updateConsumerGroupTimestamp('adm-g-ts', '2000-01-01T00:00:00.000Z')
    expect(result).toMatchObject({ success: true, consumerGroup: 'adm-g-ts' })
    // The partition it never read now starts at 2000: its older messages are delivered.
    const popped = await queen.queue('adm-cg-ts').partition('unread').group('adm-g-ts').batch(10).wait(false).pop()
    expect(popped.map((m: any) => m.data.n)).toEqual([0, 1])
    // A group subscribed the same way but not updated still skips them.
    expect(
      await queen.queue('adm-cg-ts').partition('unread').group('adm-g-ts-ctl').batch(10).wait(false).pop(),
    ).toEqual([])
  })

  it('admin.health() and admin.metrics() answer', async () => {
    const health = await admin.health()
    expect(health).toMatchObject({ status: 'healthy', database: 'connected' })
    const metrics = await admin.metrics()
    expect(metrics).toHaveProperty('uptime')
    expect(metrics).toHaveProperty('requests')
  })

  it('admin maintenance flags: set and get push and pop maintenance', async () => {
    expect(await admin.getMaintenanceMode()).toMatchObject({ maintenanceMode: false, popMaintenanceMode: false })
    try {
      expect(await admin.setMaintenanceMode(true)).toMatchObject({ maintenanceMode: true })
      expect(await admin.getMaintenanceMode()).toMatchObject({ maintenanceMode: true })
    } finally {
      expect(await admin.setMaintenanceMode(false)).toMatchObject({ maintenanceMode: false })
    }
    try {
      expect(await admin.setPopMaintenanceMode(true)).toMatchObject({ popMaintenanceMode: true })
      expect(await admin.getPopMaintenanceMode()).toMatchObject({ popMaintenanceMode: true })
    } finally {
      expect(await admin.setPopMaintenanceMode(false)).toMatchObject({ popMaintenanceMode: false })
    }
    expect(await admin.getPopMaintenanceMode()).toMatchObject({ popMaintenanceMode: false })
  })

  it('admin.getSystemMetrics(), getWorkerMetrics() and getPostgresStats() answer', async () => {
    const system = await admin.getSystemMetrics()
    expect(Array.isArray(system.series)).toBe(true)
    const workers = await admin.getWorkerMetrics()
    expect(Array.isArray(workers.series)).toBe(true)
    const postgres = await admin.getPostgresStats()
    expect(postgres).toHaveProperty('tableSizes')
    expect(postgres).toHaveProperty('cacheSummary')
  })
})
