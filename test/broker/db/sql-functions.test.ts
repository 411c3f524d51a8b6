import { describe, expect, it } from 'vitest'
import { randomUUID } from 'node:crypto'
import pg from 'pg'
import { databaseConnection, useTestDatabase } from '../../support/database.js'

const testDatabase = useTestDatabase('sqlfn')

async function push(items: object[]) {
  const r = await testDatabase
    .client()
    .query('SELECT * FROM queen.push_messages($1, $2::jsonb)', ['', JSON.stringify(items)])
  return r.rows
}

/** Pops up to 10 messages of one partition of `queue` in queue mode under `lease` (no auto-ack). */
async function popQueueMode(queue: string, lease: string) {
  const q = await testDatabase.client().query('SELECT id FROM queen.queues WHERE name = $1', [queue])
  const popped = await testDatabase
    .client()
    .query('SELECT * FROM queen.pop_messages($1, NULL, $2, 10, 1, $3, false, NULL, NULL)', [
      q.rows[0].id,
      '__QUEUE_MODE__',
      lease,
    ])
  return popped.rows
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
    const lease = randomUUID()
    const popped = await popQueueMode('orders', lease)
    expect(popped.map((r) => r.transaction_id)).toEqual(['t1', 't2'])
    const pid = popped[0].partition_id
    const acks = await testDatabase.client().query('SELECT * FROM queen.ack_messages($1::jsonb)', [
      JSON.stringify([
        { i: 0, pid, tx: 't2', g: '__QUEUE_MODE__', l: lease, st: 'completed' },
        { i: 1, pid, tx: 't1', g: '__QUEUE_MODE__', l: lease, st: 'completed' },
      ]),
    ])
    expect(acks.rows.map((r) => [r.success, r.lease_released, r.error])).toEqual([
      [true, false, null],
      [true, true, null],
    ])
    const c = await testDatabase.client().query('SELECT cursor_position, lease_id FROM queen.consumers')
    expect(c.rows[0]).toEqual({ cursor_position: '2', lease_id: null })
  })

  it('checks each item for an earlier transaction id in its own partition and its own dedup window', async () => {
    // The first push creates the partitions (general path); the next ones take the fast path, which looks up
    // a whole batch's transaction ids per partition at once.
    const first = await push([
      { i: 0, q: 'dd', p: 'A', id: randomUUID(), tx: 'x', pl: 1 },
      { i: 1, q: 'dd', p: 'B', id: randomUUID(), tx: 'y', pl: 2 },
    ])
    expect(first.map((r) => r.status)).toEqual(['queued', 'queued'])
    const ids = [randomUUID(), randomUUID(), randomUUID(), randomUUID(), randomUUID()]
    const batch = await push([
      { i: 0, q: 'dd', p: 'A', id: ids[0], tx: 'x', pl: 3 },
      { i: 1, q: 'dd', p: 'B', id: ids[1], tx: 'x', pl: 4 },
      { i: 2, q: 'dd', p: 'B', id: ids[2], tx: 'y', pl: 5 },
      { i: 3, q: 'dd', p: 'A', id: ids[3], tx: 'z', pl: 6 },
      { i: 4, q: 'dd', p: 'A', id: ids[4], tx: 'z', pl: 7 },
    ])
    expect(batch.map((r) => [r.idx, r.status, r.message_id])).toEqual([
      [0, 'duplicate', first[0].message_id],
      [1, 'queued', ids[1]],
      [2, 'duplicate', first[1].message_id],
      [3, 'queued', ids[3]],
      [4, 'duplicate', ids[3]],
    ])
    // Replayed items carry their own acceptance time: two hours later, 'x' is outside the 3600 s window.
    const later = new Date(Date.now() + 2 * 3600_000).toISOString()
    const replayed = await testDatabase.client().query('SELECT * FROM queen.push_messages($1, $2::jsonb, true)', [
      '',
      JSON.stringify([
        { i: 0, q: 'dd', p: 'A', id: randomUUID(), tx: 'x', pl: 8, acc: later },
        { i: 1, q: 'dd', p: 'A', id: randomUUID(), tx: 'z', pl: 9, acc: new Date().toISOString() },
      ]),
    ])
    expect(replayed.rows.map((r) => [r.status, r.message_id === ids[3]])).toEqual([
      ['queued', false],
      ['duplicate', true],
    ])
    const stored = await testDatabase.client().query(
      `SELECT p.name, m.transaction_id, m.payload FROM queen.messages m JOIN queen.partitions p ON p.id = m.partition_id
       JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = 'dd' ORDER BY p.name, m.position`,
    )
    expect(stored.rows.map((r) => [r.name, r.transaction_id, r.payload])).toEqual([
      ['A', 'x', 1],
      ['A', 'z', 6],
      ['A', 'x', 8],
      ['B', 'y', 2],
      ['B', 'x', 4],
    ])
  })

  // The ack of a whole lease takes a one-update fast path; these are the cases it must leave to the
  // per-item rules.
  async function leaseOf(queue: string, partition: string, txs: string[]) {
    await push(txs.map((tx, i) => ({ i, q: queue, p: partition, id: randomUUID(), tx, pl: { tx } })))
    const lease = randomUUID()
    const popped = await popQueueMode(queue, lease)
    expect(popped.map((r) => r.transaction_id)).toEqual(txs)
    return { lease, pid: popped[0].partition_id as string }
  }
  async function ack(items: { pid: string; tx: string; l: string }[]) {
    const r = await testDatabase
      .client()
      .query('SELECT * FROM queen.ack_messages($1::jsonb)', [
        JSON.stringify(items.map((x, i) => ({ i, ...x, g: '__QUEUE_MODE__', st: 'completed' }))),
      ])
    return [...r.rows].sort((a, b) => a.idx - b.idx).map((r) => [r.success, r.already_acked, r.lease_released, r.error])
  }
  async function consumerOf(pid: string) {
    const c = await testDatabase
      .client()
      .query('SELECT cursor_position, lease_id FROM queen.consumers WHERE partition_id = $1', [pid])
    return c.rows[0]
  }

  it('an ack naming an unknown message beside leased ones settles only the leased ones and keeps the lease', async () => {
    const { lease, pid } = await leaseOf('fast-unknown', 'A', ['a', 'b', 'c'])
    expect(
      await ack([
        { pid, tx: 'a', l: lease },
        { pid, tx: 'b', l: lease },
        { pid, tx: 'zz', l: lease },
      ]),
    ).toEqual([
      [true, false, false, null],
      [true, false, false, null],
      [false, false, null, 'Message not found'],
    ])
    expect(await consumerOf(pid)).toEqual({ cursor_position: '2', lease_id: lease })
  })

  it('an ack naming one message twice settles it once and leaves the lease on the other message', async () => {
    const { lease, pid } = await leaseOf('fast-twice', 'A', ['a', 'b'])
    const answers = await ack([
      { pid, tx: 'a', l: lease },
      { pid, tx: 'a', l: lease },
    ])
    expect(answers[0]).toEqual([true, false, false, null])
    expect(answers[1]?.slice(0, 2)).toEqual([true, true])
    expect(await consumerOf(pid)).toEqual({ cursor_position: '1', lease_id: lease })
  })

  it('a pop that meets a live lease leaves that consumer row unlocked, so the ack of the lease never waits for it', async () => {
    const { lease, pid } = await leaseOf('lease-unlocked', 'A', ['a'])
    const client = testDatabase.client()
    const queueId = (await client.query("SELECT id FROM queen.queues WHERE name = 'lease-unlocked'")).rows[0].id
    const database = (await client.query('SELECT current_database() AS name')).rows[0].name
    const other = new pg.Client(databaseConnection(database))
    await other.connect()
    try {
      // Another pop of that partition, still inside its transaction, finds the lease held.
      await other.query('BEGIN')
      const popped = await other.query(
        'SELECT kind FROM queen.pop_messages($1, $2, $3, 10, 1, $4, false, NULL, NULL)',
        [queueId, pid, '__QUEUE_MODE__', randomUUID()],
      )
      expect(popped.rows.map((row) => row.kind)).toEqual(['lease_held'])
      // Had that pop locked the row, this ack would wait for the other transaction and hit the lock timeout.
      await client.query("SET lock_timeout = '3s'")
      expect(await ack([{ pid, tx: 'a', l: lease }])).toEqual([[true, false, true, null]])
      expect(await consumerOf(pid)).toEqual({ cursor_position: '1', lease_id: null })
    } finally {
      await client.query('RESET lock_timeout')
      await other.query('ROLLBACK')
      await other.end()
    }
  })

  it('reports whether each whole lease it released left its partition drained', async () => {
    const wholePartition = await leaseOf('drained-all', 'A', ['a1', 'a2'])
    const pushedSince = await leaseOf('drained-later', 'A', ['b1'])
    await push([{ i: 0, q: 'drained-later', p: 'A', id: randomUUID(), tx: 'b2', pl: {} }])
    const client = testDatabase.client()
    const answer = await client.query(
      'SELECT ord, applied, drained FROM queen.ack_leases_drained($1::uuid[], $2::text[], $3::uuid[], $4::integer[], $5::text[]) ORDER BY ord',
      [
        [wholePartition.pid, pushedSince.pid, pushedSince.pid],
        ['__QUEUE_MODE__', '__QUEUE_MODE__', '__QUEUE_MODE__'],
        [wholePartition.lease, pushedSince.lease, randomUUID()],
        [2, 1, 1],
        ['a1', 'a2', 'b1', 'b1'],
      ],
    )
    expect(answer.rows).toEqual([
      { ord: 1, applied: true, drained: true },
      { ord: 2, applied: true, drained: false },
      // Not this lease: nothing applied, nothing to say about the partition.
      { ord: 3, applied: false, drained: null },
    ])
    expect(await consumerOf(pushedSince.pid)).toEqual({ cursor_position: '1', lease_id: null })
  })

  it('leaves no queen.ack_leases of development builds behind', async () => {
    const found = await testDatabase
      .client()
      .query("SELECT count(*)::int AS n FROM pg_proc WHERE proname = 'ack_leases'")
    expect(found.rows).toEqual([{ n: 0 }])
  })

  it('a wildcard pop looks past a first window of candidates that concurrent pops hold', async () => {
    const client = testDatabase.client()
    const partitions = Array.from({ length: 25 }, (_, index) => `p${String(index).padStart(2, '0')}`)
    await push(
      partitions.flatMap((p, i) =>
        [0, 1].map((n) => ({ i: 2 * i + n, q: 'windows', p, id: randomUUID(), tx: `${p}-${n}`, pl: {} })),
      ),
    )
    const queueId = (await client.query("SELECT id FROM queen.queues WHERE name = 'windows'")).rows[0].id
    const popOne = async (db: pg.ClientBase, batch: number, maxPartitions: number) => {
      const lease = randomUUID()
      const rows = (
        await db.query('SELECT * FROM queen.pop_messages($1, NULL, $2, $3, $4, $5, false, NULL, NULL)', [
          queueId,
          '__QUEUE_MODE__',
          batch,
          maxPartitions,
          lease,
        ])
      ).rows.filter((row) => row.kind === 'message')
      return { lease, rows }
    }
    // Serve every partition once, so each has its consumer row and one message left.
    for (let round = 0; round < partitions.length; round++) {
      const { lease, rows } = await popOne(client, 1, 1)
      expect(rows).toHaveLength(1)
      await client.query(
        'SELECT * FROM queen.ack_leases_drained($1::uuid[], $2::text[], $3::uuid[], $4::integer[], $5::text[])',
        [[rows[0].partition_id], ['__QUEUE_MODE__'], [lease], [1], [rows[0].transaction_id]],
      )
    }
    const database = (await client.query('SELECT current_database() AS name')).rows[0].name
    const other = new pg.Client(databaseConnection(database))
    await other.connect()
    try {
      // Another pop, still in its transaction, holds the 20 least recently served partitions: a pop of one
      // partition reads 20 candidates in its first window, all of them held.
      await other.query('BEGIN')
      const held = await popOne(other, 20, 20)
      expect(held.rows).toHaveLength(20)
      const next = await popOne(client, 1, 1)
      expect(next.rows).toHaveLength(1)
      expect(held.rows.map((row) => row.partition_id)).not.toContain(next.rows[0].partition_id)
    } finally {
      await other.query('ROLLBACK')
      await other.end()
    }
  })

  it('one batch acking two whole leases answers every item in request order and releases both', async () => {
    const first = await leaseOf('fast-two', 'A', ['a1', 'a2'])
    const second = await leaseOf('fast-two-b', 'B', ['b1'])
    expect(
      await ack([
        { pid: second.pid, tx: 'b1', l: second.lease },
        { pid: first.pid, tx: 'a2', l: first.lease },
        { pid: first.pid, tx: 'a1', l: first.lease },
      ]),
    ).toEqual([
      [true, false, true, null],
      [true, false, false, null],
      [true, false, true, null],
    ])
    expect(await consumerOf(first.pid)).toEqual({ cursor_position: '2', lease_id: null })
    expect(await consumerOf(second.pid)).toEqual({ cursor_position: '1', lease_id: null })
  })

  it('queen.require stops the statement that relies on a write that did not happen', async () => {
    const db = testDatabase.client()
    expect((await db.query(`SELECT queen.require(1 = 1, 'unused') AS ok`)).rows[0].ok).toBe(true)
    // A false or unknown condition fails the whole statement (no rows, nothing written), naming the write.
    await expect(db.query(`SELECT queen.require(0 = 1, 'a pop claim was not written')`)).rejects.toThrow(
      'internal error: a pop claim was not written',
    )
    await expect(db.query(`SELECT queen.require(NULL, 'no answer')`)).rejects.toThrow('internal error: no answer')
  })
})
