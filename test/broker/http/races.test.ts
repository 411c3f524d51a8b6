import pg from 'pg'
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { databaseConnection } from '../../support/database.js'
import { http, startTestBroker, type TestBroker } from '../../support/broker.js'
import { ackBatch, numbers, pop, pushMany, sleep } from '../../support/queen.js'

let broker: TestBroker
beforeAll(async () => {
  broker = await startTestBroker({ label: 'races', config: { pg: { poolSize: 12 } } })
})
afterAll(async () => {
  await broker.close()
})

describe('concurrency', () => {
  it('never lets two consumers of one group hold the same partition', async () => {
    const total = 300
    await pushMany(broker, 'race', 'only', total)
    const delivered: number[] = []
    let overlaps = 0
    let holders = 0
    const consumer = async () => {
      for (;;) {
        const body = await pop(broker, 'race', { batch: 7 })
        if (body.messages.length === 0) {
          if (delivered.length >= total) return
          await sleep(5)
          continue
        }
        holders += 1
        if (holders > 1) overlaps += 1
        delivered.push(...numbers(body))
        await sleep(2)
        holders -= 1
        await ackBatch(broker, body.messages)
      }
    }
    await Promise.all(Array.from({ length: 8 }, consumer))
    expect(overlaps).toBe(0)
    // Every message exactly once, in order (one partition, one lease at a time).
    expect(delivered).toEqual(Array.from({ length: total }, (_, index) => index))
  })

  it('delivers a push whose transaction commits after a later push to the same partition, in position order', async () => {
    // Producer A holds a push transaction open on partition p (as a slow commit would).
    await pushMany(broker, 'commit-order', 'p', 1)
    const held = new pg.Client(databaseConnection(broker.database))
    await held.connect()
    try {
      await held.query('BEGIN')
      await held.query('SELECT * FROM queen.push_messages($1, $2::jsonb)', [
        '',
        JSON.stringify([{ i: 0, q: 'commit-order', p: 'p', id: randomUUID(), tx: 'slow-A', pl: { n: 1 } }]),
      ])
      // Producer B pushes to the same partition and is answered only after A commits: it cannot take a
      // position before A's, so no reader can move past A's position while A is in flight.
      let bAnswered = false
      const b = http(broker, 'POST', '/api/v1/push', {
        items: [{ queue: 'commit-order', partition: 'p', payload: { n: 2 }, transactionId: 'fast-B' }],
      }).then((response) => {
        bAnswered = true
        return response
      })
      // A consumer drains and acks what is visible meanwhile: only the first message.
      const early = await pop(broker, 'commit-order', { batch: 10 })
      expect(numbers(early)).toEqual([0])
      await ackBatch(broker, early.messages)
      await sleep(300)
      expect(bAnswered).toBe(false)
      await held.query('COMMIT')
      const bResponse = await b
      expect(bResponse.body[0].status).toBe('queued')
      // Both late messages are delivered, in position order: A (committed first) then B.
      const late = await pop(broker, 'commit-order', { batch: 10 })
      expect(numbers(late)).toEqual([1, 2])
      expect(late.messages.map((message: any) => message.transactionId)).toEqual(['slow-A', 'fast-B'])
    } finally {
      await held.query('ROLLBACK').catch(() => undefined)
      await held.end()
    }
  })

  it('creates each queue and partition once under a storm of concurrent first pushes', async () => {
    const requests = Array.from({ length: 40 }, (_, index) =>
      http(broker, 'POST', '/api/v1/push', {
        items: Array.from({ length: 10 }, (_, item) => ({
          queue: `storm-${(index + item) % 5}`,
          partition: `p-${(index * 7 + item) % 13}`,
          payload: { index, item },
        })),
      }),
    )
    const responses = await Promise.all(requests)
    expect(responses.every((response) => response.status === 200)).toBe(true)
    expect(responses.flatMap((response) => response.body).every((item: any) => item.status === 'queued')).toBe(true)
    const queues = await broker.db.query(
      "SELECT name, count(*)::int AS n FROM queen.queues WHERE name LIKE 'storm-%' GROUP BY name",
    )
    expect(queues.rows).toHaveLength(5)
    expect(queues.rows.every((row) => row.n === 1)).toBe(true)
    const duplicates = await broker.db.query(
      `SELECT p.queue_id, p.name FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id
       WHERE q.name LIKE 'storm-%' GROUP BY p.queue_id, p.name HAVING count(*) > 1`,
    )
    expect(duplicates.rows).toEqual([])
    const stored = await broker.db.query(
      "SELECT count(*)::int AS n FROM queen.messages m JOIN queen.partitions p ON p.id = m.partition_id JOIN queen.queues q ON q.id = p.queue_id WHERE q.name LIKE 'storm-%'",
    )
    expect(stored.rows[0].n).toBe(400)
  })

  it('stores exactly one message for concurrent pushes of one transaction id', async () => {
    const responses = await Promise.all(
      Array.from({ length: 10 }, () =>
        http(broker, 'POST', '/api/v1/push', {
          items: [{ queue: 'dup-race', partition: 'p', payload: 1, transactionId: 'one' }],
        }),
      ),
    )
    const statuses = responses.map((response) => response.body[0].status)
    expect(statuses.filter((status) => status === 'queued')).toHaveLength(1)
    expect(statuses.filter((status) => status === 'duplicate')).toHaveLength(9)
    expect(new Set(responses.map((response) => response.body[0].message_id)).size).toBe(1)
  })
})
