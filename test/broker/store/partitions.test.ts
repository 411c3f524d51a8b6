import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { listPartitions } from '../../../src/broker/store/partitions.js'
import { startTestBroker, type TestBroker } from '../../support/broker.js'
import { pop, push } from '../../support/queen.js'

let broker: TestBroker
beforeAll(async () => {
  broker = await startTestBroker({ label: 'store-partitions' })
})
afterAll(async () => {
  await broker.close()
})

describe('listPartitions', () => {
  it('reads the partitions of one queue, or of every queue, of one tenant, by queue then name, with counters', async () => {
    // Given two queues of the default tenant, one message of q1/a leased, and a queue named q1 in tenant t2
    const pushed = await push(broker, [
      { queue: 'store-q1', partition: 'b', payload: { n: 0 } },
      { queue: 'store-q1', partition: 'a', payload: { n: 1 } },
      { queue: 'store-q1', partition: 'a', payload: { n: 2 } },
      { queue: 'store-q2', partition: 'c', payload: { n: 3 } },
    ])
    expect((await pop(broker, 'store-q1', { batch: 1 }, 'a')).messages).toHaveLength(1)
    const other = await broker.db.query<{ id: string }>(
      `WITH q AS (INSERT INTO queen.queues (tenant, name) VALUES ('t2', 'store-q1') RETURNING id)
       INSERT INTO queen.partitions (queue_id, name) SELECT q.id, 'elsewhere' FROM q RETURNING id`,
    )

    // When the default tenant's partitions of store-q1 are read
    const rows = await listPartitions(broker.db, { tenant: '', queue: 'store-q1', limit: 100, offset: 0 })

    // Then they come by name, typed, with the live counters
    expect(rows).toEqual([
      {
        id: pushed[1].partition_id,
        name: 'a',
        queue: 'store-q1',
        // An auto-created queue derives its namespace from its name (docs/semantics.md, "Auto-creation").
        namespace: 'store-q1',
        task: '',
        created_at: expect.any(Date),
        last_activity_at: expect.any(Date),
        total: 2,
        pending: 1,
        processing: 1,
      },
      {
        id: pushed[0].partition_id,
        name: 'b',
        queue: 'store-q1',
        namespace: 'store-q1',
        task: '',
        created_at: expect.any(Date),
        last_activity_at: expect.any(Date),
        total: 1,
        pending: 1,
        processing: 0,
      },
    ])
    // Without a queue: every queue of the tenant, and nothing of another tenant
    const all = await listPartitions(broker.db, { tenant: '', queue: null, limit: 100, offset: 0 })
    expect(all.map((row) => `${row.queue}/${row.name}`)).toEqual(['store-q1/a', 'store-q1/b', 'store-q2/c'])
    const t2 = await listPartitions(broker.db, { tenant: 't2', queue: 'store-q1', limit: 100, offset: 0 })
    expect(t2.map((row) => [row.id, row.name, row.total])).toEqual([[other.rows[0]!.id, 'elsewhere', 0]])
    // A page, and an unknown queue
    const page = await listPartitions(broker.db, { tenant: '', queue: null, limit: 1, offset: 2 })
    expect(page.map((row) => row.name)).toEqual(['c'])
    expect(await listPartitions(broker.db, { tenant: '', queue: 'store-none', limit: 100, offset: 0 })).toEqual([])
  })
})
