import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { http, startTestBroker, type TestBroker } from '../../support/broker.js'
import { ack, ackBatch, configure, pop, pushMany } from '../../support/queen.js'

// One broker on its own database for the whole file: these routes aggregate over every queue of the
// tenant, so the expected totals below are exact only if nothing else writes here.
let broker: TestBroker
beforeAll(async () => {
  broker = await startTestBroker({ label: 'overview' })
})
afterAll(async () => {
  await broker.close()
})

/** Moves every message of one partition `seconds` into the past, keeping their order. */
async function backdate(queue: string, partition: string, seconds: number): Promise<void> {
  await broker.db.query(
    `UPDATE queen.messages m SET created_at = m.created_at - make_interval(secs => $3)
     FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id
     WHERE p.id = m.partition_id AND q.name = $1 AND p.name = $2`,
    [queue, partition, seconds],
  )
}

describe('resource listings across queues', () => {
  it('answers empty listings and a zero overview on a fresh broker', async () => {
    expect((await http(broker, 'GET', '/api/v1/resources/namespaces')).body).toEqual({ namespaces: [] })
    expect((await http(broker, 'GET', '/api/v1/resources/tasks')).body).toEqual({ tasks: [] })
    const overview = await http(broker, 'GET', '/api/v1/resources/overview')
    expect(overview.status).toBe(200)
    const zero = { avg: 0, median: 0, min: 0, max: 0 }
    expect(overview.body).toEqual({
      queues: 0,
      partitions: 0,
      namespaces: 0,
      tasks: 0,
      messages: { total: 0, pending: 0, processing: 0, completed: 0, failed: 0, deadLetter: 0 },
      lag: { time: zero, offset: zero },
      throughput: { ingestedPerSecond: 0, processedPerSecond: 0 },
      timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      statsAge: 0,
    })
  })

  describe('with data', () => {
    beforeAll(async () => {
      // shop.orders: p1 (3 messages, all consumed by group g), p2 (2, never read by g)
      await pushMany(broker, 'shop.orders', 'p1', 3)
      await pushMany(broker, 'shop.orders', 'p2', 2)
      const consumed = await pop(broker, 'shop.orders', { consumerGroup: 'g', batch: 10 }, 'p1')
      await ackBatch(broker, consumed.messages)
      // shop.refunds: 1 pending
      await pushMany(broker, 'shop.refunds', 'Default', 1)
      // mail.orders: 4 messages; queue mode completed 1 and holds 1 in flight
      await pushMany(broker, 'mail.orders', 'Default', 4)
      const mail = await pop(broker, 'mail.orders', { batch: 2 })
      await ack(broker, mail.messages[0])
      // plain (namespace "plain", no task): 1 message dead-lettered by queue mode
      await configure(broker, 'plain', { retryLimit: 0 })
      await pushMany(broker, 'plain', 'Default', 1)
      const doomed = await pop(broker, 'plain')
      await ack(broker, doomed.messages[0], { status: 'failed' })
      await backdate('shop.orders', 'p2', 1000)
      await backdate('mail.orders', 'Default', 2000)
    })

    it('groups queues by namespace, leaving out queues without one', async () => {
      const response = await http(broker, 'GET', '/api/v1/resources/namespaces')
      expect(response.status).toBe(200)
      expect(response.body).toEqual({
        namespaces: [
          { namespace: 'mail', queues: 1, partitions: 1, messages: { total: 4, pending: 2 } },
          { namespace: 'plain', queues: 1, partitions: 1, messages: { total: 1, pending: 0 } },
          { namespace: 'shop', queues: 2, partitions: 3, messages: { total: 6, pending: 3 } },
        ],
      })
    })

    it('groups queues by task, leaving out queues without one', async () => {
      const response = await http(broker, 'GET', '/api/v1/resources/tasks')
      expect(response.status).toBe(200)
      expect(response.body).toEqual({
        tasks: [
          { task: 'orders', queues: 2, partitions: 3, messages: { total: 9, pending: 4 } },
          { task: 'refunds', queues: 1, partitions: 1, messages: { total: 1, pending: 1 } },
        ],
      })
    })

    it('sums counters and aggregates lag per (partition, group) in the overview', async () => {
      const response = await http(broker, 'GET', '/api/v1/resources/overview')
      expect(response.status).toBe(200)
      const body = response.body
      expect(Object.keys(body).sort()).toEqual(
        [
          'queues',
          'partitions',
          'namespaces',
          'tasks',
          'messages',
          'lag',
          'throughput',
          'timestamp',
          'statsAge',
        ].sort(),
      )
      expect(body).toMatchObject({ queues: 4, partitions: 5, namespaces: 3, tasks: 2, statsAge: 0 })
      expect(body.messages).toEqual({ total: 11, pending: 5, processing: 1, completed: 4, failed: 0, deadLetter: 1 })
      expect(body.throughput).toEqual({ ingestedPerSecond: 0, processedPerSecond: 0 })

      // Pairs: (shop.orders/p1, g) 0 unsettled; (shop.orders/p2, g) 2, 1000 s old; (mail.orders, queue mode)
      // 3, 2000 s old; (plain, queue mode) 0.
      expect(body.lag.offset).toEqual({ avg: 1.25, median: 1, min: 0, max: 3 })
      const { time } = body.lag
      expect(Object.keys(time).sort()).toEqual(['avg', 'max', 'median', 'min'])
      expect(time.min).toBe(0)
      expect(time.max).toBeGreaterThanOrEqual(2000)
      expect(time.max).toBeLessThan(2060)
      expect(time.median).toBeGreaterThanOrEqual(500)
      expect(time.median).toBeLessThan(530)
      expect(time.avg).toBeGreaterThanOrEqual(750)
      expect(time.avg).toBeLessThan(780)
      expect(Math.abs(Date.parse(body.timestamp) - Date.now())).toBeLessThan(5000)
    })
  })
})
