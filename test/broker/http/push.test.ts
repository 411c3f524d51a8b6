import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { http, startTestBroker, type TestBroker } from '../../support/broker.js'
import { configure, pop, push, sleep } from '../../support/queen.js'

let broker: TestBroker
beforeAll(async () => {
  broker = await startTestBroker({ label: 'push' })
})
afterAll(async () => {
  await broker.close()
})

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** A validated push item for in-process submission (`services.ingest.push`), payload and id from `index`. */
function ingestItem(queue: string, partition: string, index: number) {
  return {
    queue,
    partition,
    payload: index,
    transactionId: `${queue}-${index}`,
    generatedTransactionId: false,
    traceId: null,
    producerSub: null,
  }
}

/** Messages stored in `queue`, read from the database. */
async function storedIn(queue: string): Promise<number> {
  const rows = await broker.db.query(
    'SELECT count(*)::int AS n FROM queen.messages m JOIN queen.partitions p ON p.id = m.partition_id JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = $1',
    [queue],
  )
  return rows.rows[0].n
}

describe('POST /api/v1/push', () => {
  it('answers one result per item, in order, with the wire field names of docs/http-api.md, "Push result"', async () => {
    const traceId = '0190b3c6-4f1c-7a3e-9b2d-1c2d3e4f5a6b'
    const results = await push(broker, [
      { queue: 'push-shape', partition: 'p1', payload: { a: 1 }, transactionId: 'tx-1', traceId },
      { queue: 'push-shape', payload: 'plain string' },
    ])
    expect(results).toHaveLength(2)
    expect(Object.keys(results[0]).sort()).toEqual(
      ['index', 'message_id', 'partition_id', 'queueName', 'status', 'trace_id', 'transaction_id'].sort(),
    )
    expect(results[0]).toMatchObject({
      index: 0,
      transaction_id: 'tx-1',
      status: 'queued',
      trace_id: traceId,
      queueName: 'push-shape',
    })
    expect(results[1]).toMatchObject({ index: 1, status: 'queued', trace_id: null })
    expect(results[0].message_id).toMatch(UUID)
    // A push without transactionId gets a broker-generated one (UUIDv7), returned to the producer.
    expect(results[1].transaction_id).toMatch(UUID)
    expect(results[1].transaction_id[14]).toBe('7')
    const rows = await broker.db.query('SELECT transaction_id, payload FROM queen.messages ORDER BY position')
    expect(rows.rows.map((row) => row.transaction_id)).toContain(results[1].transaction_id)
  })

  it('answers [] for an empty items array and stores nothing', async () => {
    const before = await broker.db.query('SELECT count(*)::int AS n FROM queen.messages')
    const response = await http(broker, 'POST', '/api/v1/push', { items: [] })
    expect(response.status).toBe(200)
    expect(response.body).toEqual([])
    const after = await broker.db.query('SELECT count(*)::int AS n FROM queen.messages')
    expect(after.rows[0].n).toBe(before.rows[0].n)
  })

  it('auto-creates queues with namespace and task derived from the name, and the Default partition', async () => {
    await push(broker, [
      { queue: 'billing.invoices', payload: 1 },
      { queue: 'plainname', payload: 2 },
    ])
    const queues = await broker.db.query(
      "SELECT name, namespace, task FROM queen.queues WHERE name IN ('billing.invoices', 'plainname') ORDER BY name",
    )
    expect(queues.rows).toEqual([
      { name: 'billing.invoices', namespace: 'billing', task: 'invoices' },
      { name: 'plainname', namespace: 'plainname', task: '' },
    ])
    const partitions = await broker.db.query(
      "SELECT p.name FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = 'plainname'",
    )
    expect(partitions.rows).toEqual([{ name: 'Default' }])
  })

  it('answers duplicate with the original message id for a second push of the same transactionId', async () => {
    const [first] = await push(broker, [{ queue: 'dedup', partition: 'p', payload: { v: 1 }, transactionId: 'same' }])
    const [second] = await push(broker, [{ queue: 'dedup', partition: 'p', payload: { v: 2 }, transactionId: 'same' }])
    expect(first.status).toBe('queued')
    expect(second).toMatchObject({
      status: 'duplicate',
      message_id: first.message_id,
      partition_id: first.partition_id,
    })
    // The duplicate's payload is discarded: only one row, with the first payload.
    const rows = await broker.db.query(
      "SELECT m.payload FROM queen.messages m WHERE m.partition_id = $1 AND m.transaction_id = 'same'",
      [first.partition_id],
    )
    expect(rows.rows).toEqual([{ payload: { v: 1 } }])
    // Other partitions are other dedup scopes.
    const [elsewhere] = await push(broker, [{ queue: 'dedup', partition: 'other', payload: {}, transactionId: 'same' }])
    expect(elsewhere.status).toBe('queued')
  })

  it('stores the first of duplicates inside one request and answers the rest duplicate', async () => {
    const results = await push(broker, [
      { queue: 'dedup-batch', payload: 1, transactionId: 'x' },
      { queue: 'dedup-batch', payload: 2, transactionId: 'x' },
      { queue: 'dedup-batch', payload: 3, transactionId: 'y' },
    ])
    expect(results.map((result) => result.status)).toEqual(['queued', 'duplicate', 'queued'])
    expect(results[1].message_id).toBe(results[0].message_id)
  })

  it('answers every duplicate of an earlier message inside one request with the stored id', async () => {
    const [first] = await push(broker, [{ queue: 'dedup-again', partition: 'p', payload: 1, transactionId: 'e' }])
    const results = await push(broker, [
      { queue: 'dedup-again', partition: 'p', payload: 2, transactionId: 'e' },
      { queue: 'dedup-again', partition: 'p', payload: 3, transactionId: 'e' },
    ])
    expect(results.map((result) => [result.status, result.message_id])).toEqual([
      ['duplicate', first.message_id],
      ['duplicate', first.message_id],
    ])
    expect(await storedIn('dedup-again')).toBe(1)
  })

  it('answers concurrent pushes of one transactionId with the one stored id, new partition or not', async () => {
    for (let trial = 0; trial < 10; trial++) {
      // Even trials race on a partition that does not exist yet, odd ones on an existing one.
      const partition = trial % 2 === 0 ? `fresh-${trial}` : 'existing'
      const transactionId = `race-${trial}`
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, n) =>
          push(broker, [{ queue: 'dedup-race', partition, payload: n, transactionId }]).then(([result]) => result),
        ),
      )
      const stored = await broker.db.query(
        'SELECT m.id FROM queen.messages m JOIN queen.partitions p ON p.id = m.partition_id WHERE m.transaction_id = $1',
        [transactionId],
      )
      expect(stored.rows).toHaveLength(1)
      expect(answers.filter((answer) => answer.status === 'queued')).toHaveLength(1)
      expect(new Set(answers.map((answer) => answer.message_id))).toEqual(new Set([stored.rows[0].id]))
    }
  })

  it('answers concurrent pushes of one transactionId through two brokers on one database with the stored id', async () => {
    const second = await startTestBroker({ database: broker.database, label: 'push_second' })
    try {
      for (let trial = 0; trial < 6; trial++) {
        const transactionId = `two-brokers-${trial}`
        const partition = trial % 2 === 0 ? `two-fresh-${trial}` : 'two-existing'
        const answers = await Promise.all(
          Array.from({ length: 8 }, (_, n) =>
            push(n % 2 === 0 ? broker : second, [{ queue: 'dedup-two', partition, payload: n, transactionId }]).then(
              ([result]) => result,
            ),
          ),
        )
        const stored = await broker.db.query('SELECT id FROM queen.messages WHERE transaction_id = $1', [transactionId])
        expect(stored.rows).toHaveLength(1)
        expect(answers.filter((answer) => answer.status === 'queued')).toHaveLength(1)
        expect(new Set(answers.map((answer) => answer.message_id))).toEqual(new Set([stored.rows[0].id]))
      }
    } finally {
      await second.close()
    }
  })

  it('keeps the duplicate answer after the message was consumed, and accepts the id again after the window', async () => {
    await configure(broker, 'dedup-window', { dedupWindowSeconds: 1 })
    const [first] = await push(broker, [{ queue: 'dedup-window', payload: 1, transactionId: 'w' }])
    const popped = await pop(broker, 'dedup-window', { autoAck: true })
    expect(popped.messages).toHaveLength(1)
    const [again] = await push(broker, [{ queue: 'dedup-window', payload: 2, transactionId: 'w' }])
    expect(again).toMatchObject({ status: 'duplicate', message_id: first.message_id })
    await sleep(1200)
    const [later] = await push(broker, [{ queue: 'dedup-window', payload: 3, transactionId: 'w' }])
    expect(later.status).toBe('queued')
    expect(later.message_id).not.toBe(first.message_id)
  })

  it('disables duplicate detection with dedupWindowSeconds 0', async () => {
    await configure(broker, 'dedup-off', { dedupWindowSeconds: 0 })
    const results = await push(broker, [
      { queue: 'dedup-off', payload: 1, transactionId: 'z' },
      { queue: 'dedup-off', payload: 2, transactionId: 'z' },
    ])
    expect(results.map((result) => result.status)).toEqual(['queued', 'queued'])
  })

  it('fails only the items over maxSize, naming the queue and the cap', async () => {
    await configure(broker, 'capped', { maxSize: 3 })
    const results = await push(
      broker,
      [1, 2, 3, 4, 5].map((n) => ({ queue: 'capped', payload: n })),
    )
    expect(results.map((result) => result.status)).toEqual(['queued', 'queued', 'queued', 'failed', 'failed'])
    expect(results[3].error).toBe("queue 'capped' is full (maxSize 3)")
    const [another] = await push(broker, [{ queue: 'capped', payload: 6 }])
    expect(another.status).toBe('failed')
  })

  it('fails only the items that would create a partition beyond maxPartitions', async () => {
    await configure(broker, 'few-partitions', { maxPartitions: 2 })
    // configure created Default; one more partition fits.
    const results = await push(broker, [
      { queue: 'few-partitions', partition: 'a', payload: 1 },
      { queue: 'few-partitions', partition: 'b', payload: 2 },
      { queue: 'few-partitions', partition: 'Default', payload: 3 },
      { queue: 'few-partitions', partition: 'a', payload: 4 },
    ])
    expect(results.map((result) => result.status)).toEqual(['queued', 'failed', 'queued', 'queued'])
    expect(results[1].error).toBe("queue 'few-partitions' has reached maxPartitions 2")
  })

  it('refuses items for an encryption-enabled queue when the broker has no key, and stores no plaintext', async () => {
    // A queue flagged encrypted by another broker that has the key (written directly here).
    await push(broker, [{ queue: 'secret-q', payload: 'warm-up' }])
    await broker.db.query("UPDATE queen.queues SET encryption_enabled = true WHERE name = 'secret-q'")
    const [result] = await push(broker, [{ queue: 'secret-q', payload: 'plaintext!' }])
    expect(result.status).toBe('failed')
    expect(result.error).toBe('encryption unavailable: QUEEN_ENCRYPTION_KEY is not configured')
    const rows = await broker.db.query(
      "SELECT count(*)::int AS n FROM queen.messages WHERE payload::text LIKE '%plaintext!%'",
    )
    expect(rows.rows[0].n).toBe(0)
  })

  it('fuses concurrent pushes into fewer database round trips than requests', async () => {
    // Submitted in-process, at once: over HTTP the arrival spacing depends on the machine's load.
    await push(
      broker,
      [0, 1, 2, 3].map((index) => ({ queue: 'fused', partition: `p${index}`, payload: -1 })),
    )
    const before = broker.services.push.batching
    const item = (index: number) => ingestItem('fused', `p${index % 4}`, index)
    const results = await Promise.all(
      Array.from({ length: 64 }, (_, index) =>
        broker.services.ingest.push('', [item(index)], { requestId: `r${index}` }),
      ),
    )
    expect(results.every(([outcome]) => outcome?.status === 'queued')).toBe(true)
    const after = broker.services.push.batching
    const requests = after.requests - before.requests
    const batches = after.batches - before.batches
    expect(requests).toBe(64)
    expect(batches).toBeLessThan(requests)
    expect(await storedIn('fused')).toBe(68)
  })

  it('fuses concurrent small pushes to many partitions into one statement, and splits a large one by lane', async () => {
    const partitions = Array.from({ length: 16 }, (_, index) => `p${index}`)
    await push(
      broker,
      partitions.map((partition) => ({ queue: 'lanes', partition, payload: -1 })),
    )
    const item = (index: number) => ingestItem('lanes', partitions[index % 16]!, index)
    const before = broker.services.push.batching
    const singles = await Promise.all(
      partitions.map((_, index) => broker.services.ingest.push('', [item(index)], { requestId: `s${index}` })),
    )
    expect(singles.every(([outcome]) => outcome?.status === 'queued')).toBe(true)
    const afterSingles = broker.services.push.batching
    expect(afterSingles.requests - before.requests).toBe(16)
    expect(afterSingles.batches - before.batches).toBe(1)

    // 100 items over 16 partitions: one part per partition lane, the two statements side by side.
    const large = await broker.services.ingest.push(
      '',
      Array.from({ length: 100 }, (_, index) => item(100 + index)),
      { requestId: 'large' },
    )
    expect(large.every((outcome) => outcome.status === 'queued')).toBe(true)
    expect(broker.services.push.batching.batches - afterSingles.batches).toBe(2)
    expect(await storedIn('lanes')).toBe(16 + 16 + 100)
  })

  it('assigns positions in push order within a partition, with non-decreasing createdAt', async () => {
    for (let index = 0; index < 5; index++)
      await push(broker, [
        { queue: 'ordered', payload: { n: index } },
        { queue: 'ordered', payload: { n: index + 0.5 } },
      ])
    const body = await pop(broker, 'ordered', { batch: 100 })
    const values = body.messages.map((message: any) => message.data.n)
    expect(values).toEqual([0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5])
    const created = body.messages.map((message: any) => message.createdAt)
    expect([...created].sort()).toEqual(created)
    expect(created[0]).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/)
  })
})
