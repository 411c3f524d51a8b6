import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestDatabase, dropTestDatabase } from '../../support/database.js'
import { http, startTestBroker, type TestBroker } from '../../support/broker.js'
import { ackBatch, numbers, pop, push, pushMany, sleep } from '../../support/queen.js'

let database: string
let first: TestBroker
let second: TestBroker

// Two replicas on one database, each with its own spool; the mesh is not built yet, so flags reach the
// other replica through PostgreSQL notifications (and the periodic re-read).
beforeAll(async () => {
  database = await createTestDatabase('maintenance')
  first = await startTestBroker({ database, durable: {} })
  second = await startTestBroker({ database, durable: {} })
})
afterAll(async () => {
  await first.close()
  await second.close()
  await dropTestDatabase(database)
})

async function waitFor(check: () => Promise<boolean>, timeoutMs = 5000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await check()) return true
    await sleep(50)
  }
  return false
}

async function storedCount(queue: string): Promise<number> {
  const rows = await first.db.query(
    'SELECT count(*)::int AS n FROM queen.messages m JOIN queen.partitions p ON p.id = m.partition_id JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = $1',
    [queue],
  )
  return rows.rows[0].n
}

describe('push-maintenance', () => {
  it('spools every push on every replica while on, stores nothing, and replays in order when turned off', async () => {
    await pushMany(first, 'maint-q', 'p', 2)
    const on = await http(first, 'POST', '/api/v1/system/maintenance', { enabled: true })
    expect(on.status).toBe(200)
    expect(on.body).toMatchObject({ maintenanceMode: true, bufferHealthy: true })
    expect(
      await waitFor(async () => (await http(second, 'GET', '/api/v1/system/maintenance')).body.maintenanceMode),
    ).toBe(true)

    const results = [
      ...(await pushMany(first, 'maint-q', 'p', 5, 2)),
      ...(await pushMany(second, 'maint-q', 'p', 5, 7)),
    ]
    expect(results.map((result) => result.status)).toEqual(Array(10).fill('buffered'))
    expect(results[0]).toMatchObject({ queue: 'maint-q', partition: 'p', queueName: 'maint-q' })
    expect(results[0].transactionId).toBe(results[0].transaction_id)
    expect(await storedCount('maint-q')).toBe(2)
    const status = await http(first, 'GET', '/api/v1/system/maintenance')
    expect(status.body).toMatchObject({
      maintenanceMode: true,
      bufferedMessages: 5,
      bufferStats: { pendingCount: 5, dbHealthy: true },
    })
    // Transactions with pushes are refused while it is on.
    const tx = await http(first, 'POST', '/api/v1/transaction', {
      operations: [{ type: 'push', queue: 'maint-q', payload: 1 }],
    })
    expect(tx.body).toMatchObject({
      success: false,
      error: 'push maintenance mode is on: transactional pushes are paused',
    })

    const off = await http(second, 'POST', '/api/v1/system/maintenance', { enabled: false })
    expect(off.body.maintenanceMode).toBe(false)
    expect(await waitFor(async () => (await storedCount('maint-q')) === 12, 10_000)).toBe(true)
    const drained = await pop(first, 'maint-q', { batch: 100 })
    const values = numbers(drained)
    // Each replica's records keep their order; the two replicas' pushes were concurrent.
    expect(values.slice(0, 2)).toEqual([0, 1])
    expect(values.filter((n) => n >= 2 && n < 7)).toEqual([2, 3, 4, 5, 6])
    expect(values.filter((n) => n >= 7)).toEqual([7, 8, 9, 10, 11])
    await ackBatch(first, drained.messages)
  })

  it('refuses a body without a boolean enabled', async () => {
    const response = await http(first, 'POST', '/api/v1/system/maintenance', { enabled: 'yes' })
    expect(response.status).toBe(400)
    expect(response.body.error).toBe('enabled (boolean) is required')
  })
})

describe('pop-maintenance', () => {
  it('answers pops 204 at once, parks long-polls until it ends, and lets acks through', async () => {
    await pushMany(first, 'pop-maint-q', 'p', 2)
    const held = await pop(first, 'pop-maint-q')
    const on = await http(first, 'POST', '/api/v1/system/maintenance/pop', { enabled: true })
    expect(on.body).toMatchObject({ popMaintenanceMode: true })
    expect(
      await waitFor(async () => (await http(second, 'GET', '/api/v1/system/maintenance/pop')).body.popMaintenanceMode),
    ).toBe(true)

    const immediate = await http(second, 'GET', '/api/v1/pop/queue/pop-maint-q')
    expect(immediate.status).toBe(204)
    const timedOut = await http(first, 'GET', '/api/v1/pop/queue/pop-maint-q?wait=true&timeout=200')
    expect(timedOut.status).toBe(204)
    // Acks keep working so consumers can finish what they hold.
    expect((await ackBatch(first, held.messages))[0].success).toBe(true)

    const parked = http(second, 'GET', '/api/v1/pop/queue/pop-maint-q?wait=true&timeout=10000')
    await sleep(200)
    await http(first, 'POST', '/api/v1/system/maintenance/pop', { enabled: false })
    const resumed = await parked
    expect(resumed.status).toBe(200)
    expect(numbers(resumed.body)).toEqual([1])
    await ackBatch(second, resumed.body.messages)
  })
})

describe('GET /api/v1/status/buffers', () => {
  it('reports the spool of this broker', async () => {
    const response = await http(first, 'GET', '/api/v1/status/buffers')
    expect(response.status).toBe(200)
    expect(Object.keys(response.body).sort()).toEqual([
      'bytes',
      'dbHealthy',
      'failed',
      'pending',
      'segments',
      'state',
      'worker',
    ])
    expect(response.body).toMatchObject({ pending: 0, failed: 0, dbHealthy: true, state: 'ok' })
  })

  it('wakes parked pops on this broker through /internal/api/notify', async () => {
    const result = await push(second, [{ queue: 'notify-q', payload: { n: 1 } }])
    expect(result[0].status).toBe('queued')
    const response = await http(first, 'POST', '/internal/api/notify', { queue: 'notify-q' })
    expect(response.body).toEqual({ status: 'ok' })
    const missing = await http(first, 'POST', '/internal/api/notify', {})
    expect(missing.status).toBe(400)
    expect(missing.body.error).toBe('queue is required')
  })
})
