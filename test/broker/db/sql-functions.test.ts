import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import pg from 'pg'
import { randomUUID } from 'node:crypto'
import { createTestDatabase, databaseConnection, dropTestDatabase } from '../../support/database.js'

let db: string
let client: pg.Client

beforeAll(async () => {
  db = await createTestDatabase('sqlfn')
  client = new pg.Client(databaseConnection(db))
  await client.connect()
})
afterAll(async () => {
  await client.end()
  await dropTestDatabase(db)
})

async function push(items: object[]) {
  const r = await client.query('SELECT * FROM queen.push_messages($1, $2::jsonb)', ['', JSON.stringify(items)])
  return r.rows
}

describe('sql functions', () => {
  it('push, pop, ack round trip', async () => {
    const rows = await push([
      { i: 0, q: 'orders', p: 'A', id: randomUUID(), tx: 't1', pl: { n: 1 } },
      { i: 1, q: 'orders', p: 'A', id: randomUUID(), tx: 't2', pl: { n: 2 } },
      { i: 2, q: 'orders', p: 'A', id: randomUUID(), tx: 't1', pl: { n: 3 } },
    ])
    expect(rows.map((r) => r.status)).toEqual(['queued', 'queued', 'duplicate'])
    const dup = await push([{ i: 0, q: 'orders', p: 'A', id: randomUUID(), tx: 't2', pl: {} }])
    expect(dup[0].status).toBe('duplicate')
    expect(dup[0].message_id).toBe(rows[1].message_id)
    const q = await client.query("SELECT id FROM queen.queues WHERE name='orders'")
    const lease = randomUUID()
    const popped = await client.query('SELECT * FROM queen.pop_messages($1, NULL, $2, 10, 1, $3, false, NULL, NULL)', [
      q.rows[0].id,
      '__QUEUE_MODE__',
      lease,
    ])
    expect(popped.rows.map((r) => r.transaction_id)).toEqual(['t1', 't2'])
    const pid = popped.rows[0].partition_id
    const acks = await client.query('SELECT * FROM queen.ack_messages($1::jsonb)', [
      JSON.stringify([
        { i: 0, pid, tx: 't2', g: '__QUEUE_MODE__', l: lease, st: 'completed' },
        { i: 1, pid, tx: 't1', g: '__QUEUE_MODE__', l: lease, st: 'completed' },
      ]),
    ])
    expect(acks.rows.map((r) => [r.success, r.lease_released, r.error])).toEqual([
      [true, false, null],
      [true, true, null],
    ])
    const c = await client.query('SELECT cursor_position, lease_id FROM queen.consumers')
    expect(c.rows[0]).toEqual({ cursor_position: '2', lease_id: null })
  })
})
