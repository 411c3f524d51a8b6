import { BROKER_VERSION } from '../../../src/broker/version.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { http, startTestBroker, type TestBroker } from '../../support/broker.js'
import { parsePrometheusText } from '../../support/prometheus-text.js'
import { ack, configure, pop, pushMany } from '../../support/queen.js'

let broker: TestBroker
beforeAll(async () => {
  broker = await startTestBroker({ label: 'metrics' })
})
afterAll(async () => {
  await broker.close()
})

async function scrape(target: { url: string }) {
  const response = await http(target, 'GET', '/metrics/prometheus')
  expect(response.status).toBe(200)
  return { response, exposition: parsePrometheusText(response.body as string) }
}

describe('GET /metrics/prometheus', () => {
  it('answers the text exposition with its content type and no caching', async () => {
    const { response, exposition } = await scrape(broker)
    expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8')
    expect(response.headers.get('cache-control')).toBe('no-cache')
    expect(exposition.value('queen_build_info', { version: BROKER_VERSION, server_id: 'test-broker' })).toBe(1)
    expect(exposition.families.get('queen_build_info')?.samples[0]?.labels.node).toBe(process.version)
    expect(exposition.value('queen_uptime_seconds')).toBeGreaterThanOrEqual(0)
    expect(exposition.value('queen_db_healthy')).toBe(1)
    expect(exposition.value('queen_pop_parked')).toBe(0)
    // Every wake-up source has its series from the start (docs/operations.md, "Prometheus series"), at 0 before any
    // long-poll.
    for (const source of ['local', 'mesh', 'pg_notify', 'timer']) {
      expect(exposition.value('queen_pop_wakeups_total', { source }), source).toBe(0)
    }
    expect(exposition.families.get('queen_pop_wakeups_total')?.type).toBe('counter')
    expect(exposition.value('queen_db_pool_connections', { state: 'total' })).toBeGreaterThanOrEqual(0)
    expect(exposition.value('queen_db_pool_connections', { state: 'waiting' })).toBe(0)
    // Default process and Node.js metrics, under the queen_ prefix.
    expect(exposition.value('queen_process_resident_memory_bytes')).toBeGreaterThan(0)
    expect(exposition.value('queen_nodejs_heap_size_used_bytes')).toBeGreaterThan(0)
    expect(exposition.families.get('queen_process_cpu_seconds_total')?.type).toBe('counter')
    expect(exposition.families.get('queen_nodejs_eventloop_lag_seconds')?.type).toBe('gauge')
    // Spool and maintenance gauges exist at 0 until those parts set them.
    for (const name of [
      'queen_spool_records',
      'queen_spool_bytes',
      'queen_spool_segments',
      'queen_spool_fallback',
      'queen_spool_full',
      'queen_maintenance_mode_enabled',
      'queen_pop_maintenance_mode_enabled',
    ]) {
      expect(exposition.value(name), name).toBe(0)
    }
  })

  it('moves the message counters as messages flow', async () => {
    await configure(broker, 'prom-flow', { retryLimit: 0 })
    await pushMany(broker, 'prom-flow', 'Default', 3)
    // The same transaction ids again: duplicates are counted under their own outcome.
    const again = await http(broker, 'POST', '/api/v1/push', {
      items: [{ queue: 'prom-flow', transactionId: 'dup-1', payload: 1 }],
    })
    expect(again.status).toBe(200)
    await http(broker, 'POST', '/api/v1/push', { items: [{ queue: 'prom-flow', transactionId: 'dup-1', payload: 1 }] })
    const first = await pop(broker, 'prom-flow', { batch: 2 })
    expect(first.messages).toHaveLength(2)
    await ack(broker, first.messages[0])
    await ack(broker, first.messages[1], { status: 'failed', error: 'boom' })

    const { exposition } = await scrape(broker)
    expect(exposition.value('queen_messages_pushed_total', { queue: 'prom-flow', outcome: 'queued' })).toBe(4)
    expect(exposition.value('queen_messages_pushed_total', { queue: 'prom-flow', outcome: 'duplicate' })).toBe(1)
    expect(exposition.value('queen_messages_delivered_total', { queue: 'prom-flow' })).toBe(2)
    expect(exposition.value('queen_messages_acked_total', { queue: 'prom-flow', status: 'completed' })).toBe(1)
    expect(exposition.value('queen_messages_acked_total', { queue: 'prom-flow', status: 'failed' })).toBe(1)
    expect(exposition.value('queen_message_failures_total', { queue: 'prom-flow', cause: 'nack' })).toBe(1)
    // retryLimit 0: the failed message went to the DLQ.
    expect(exposition.value('queen_messages_dead_lettered_total', { queue: 'prom-flow' })).toBe(1)
    expect(
      exposition.value('queen_http_requests_total', { route: '/api/v1/push', method: 'POST', status: '200' }),
    ).toBeGreaterThanOrEqual(3)
    expect(exposition.value('queen_http_request_duration_seconds_count', { route: '/api/v1/ack' })).toBe(2)
    expect(exposition.families.get('queen_http_request_duration_seconds')?.type).toBe('histogram')
  })

  it('shows the stats snapshot as queue, lag and DLQ gauges after a stats cycle', async () => {
    await configure(broker, 'prom-gauges', { retryLimit: 0 })
    await pushMany(broker, 'prom-gauges', 'Default', 5)
    const popped = await pop(broker, 'prom-gauges', { batch: 2 })
    await ack(broker, popped.messages[0], { status: 'failed' })
    await broker.services.observability.statsJob.runOnce()

    const { exposition } = await scrape(broker)
    // 5 pushed: 1 dead-lettered, 1 under a live lease, 3 waiting.
    expect(exposition.value('queen_queue_pending_messages', { queue: 'prom-gauges' })).toBe(3)
    expect(exposition.value('queen_queue_processing_messages', { queue: 'prom-gauges' })).toBe(1)
    expect(exposition.value('queen_dlq_depth', { queue: 'prom-gauges' })).toBe(1)
    expect(exposition.value('queen_consumer_lag_messages', { queue: 'prom-gauges', group: '__QUEUE_MODE__' })).toBe(4)
    expect(
      exposition.value('queen_consumer_lag_seconds', { queue: 'prom-gauges', group: '__QUEUE_MODE__' }),
    ).toBeGreaterThanOrEqual(0)
  })

  it('keeps the counters of two brokers in one process apart', async () => {
    const other = await startTestBroker({ label: 'metrics_other', config: { serverId: 'other-broker' } })
    try {
      await pushMany(other, 'prom-flow', 'Default', 2)
      const mine = await scrape(broker)
      const theirs = await scrape(other)
      expect(theirs.exposition.value('queen_messages_pushed_total', { queue: 'prom-flow', outcome: 'queued' })).toBe(2)
      expect(theirs.exposition.value('queen_build_info', { server_id: 'other-broker' })).toBe(1)
      expect(mine.exposition.value('queen_messages_pushed_total', { queue: 'prom-flow', outcome: 'queued' })).toBe(4)
      expect(mine.exposition.samples('queen_build_info').map((sample) => sample.labels.server_id)).toEqual([
        'test-broker',
      ])
    } finally {
      await other.close()
    }
  })

  it('folds queues beyond QUEEN_METRICS_MAX_QUEUES into queue="_other"', async () => {
    const capped = await startTestBroker({ label: 'metrics_capped', config: { log: { metricsMaxQueues: 2 } } })
    try {
      await pushMany(capped, 'fold-a', 'Default', 1)
      await pushMany(capped, 'fold-b', 'Default', 2)
      await pushMany(capped, 'fold-c', 'Default', 3)
      await pushMany(capped, 'fold-d', 'Default', 4)
      await pushMany(capped, 'fold-a', 'Default', 1)
      const { exposition } = await scrape(capped)
      const pushed = exposition.samples('queen_messages_pushed_total')
      expect(pushed.map((sample) => [sample.labels.queue, sample.value]).sort()).toEqual([
        ['_other', 7],
        ['fold-a', 2],
        ['fold-b', 2],
      ])
    } finally {
      await capped.close()
    }
  })
})

describe('GET /metrics', () => {
  it('answers real values in the shape clients expect', async () => {
    const before = await http(broker, 'GET', '/metrics')
    expect(before.status).toBe(200)
    expect(Object.keys(before.body).sort()).toEqual(['cpu', 'database', 'memory', 'messages', 'requests', 'uptime'])
    expect(Object.keys(before.body.requests).sort()).toEqual(['rate', 'total'])
    expect(Object.keys(before.body.messages).sort()).toEqual(['rate', 'total'])
    expect(Object.keys(before.body.database).sort()).toEqual(['idleConnections', 'poolSize', 'waitingRequests'])
    expect(Object.keys(before.body.memory).sort()).toEqual(['arrayBuffers', 'external', 'heapTotal', 'heapUsed', 'rss'])
    expect(Object.keys(before.body.cpu).sort()).toEqual(['system', 'user'])
    expect(before.body.memory.rss).toBeGreaterThan(0)
    expect(before.body.memory.heapUsed).toBeGreaterThan(0)
    expect(before.body.cpu.user).toBeGreaterThan(0)
    expect(before.body.database.poolSize).toBe(10)
    expect(before.body.uptime).toBeGreaterThanOrEqual(0)

    await pushMany(broker, 'json-metrics', 'Default', 4)
    await http(broker, 'GET', '/health/live')
    const after = await http(broker, 'GET', '/metrics')
    // The push, the probe and the first /metrics call completed in between.
    expect(after.body.requests.total).toBe(before.body.requests.total + 3)
    expect(after.body.messages.total).toBe(before.body.messages.total + 4)
  })

  it('measures rates over the last stats interval', async () => {
    const stats = broker.services.observability.statsJob
    await stats.runOnce()
    await pushMany(broker, 'json-rates', 'Default', 6)
    await stats.runOnce()
    const response = await http(broker, 'GET', '/metrics')
    // Six messages between the two marks, which are well under six seconds apart.
    expect(response.body.messages.rate).toBeGreaterThan(1)
    expect(response.body.requests.rate).toBeGreaterThan(0)
  })
})
