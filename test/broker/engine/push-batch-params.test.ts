import { describe, expect, it } from 'vitest'
import { textArray } from '../../../src/broker/db/array-literals.js'
import { PushBatchParams } from '../../../src/broker/engine/push-batch-params.js'
import { useTestDatabase } from '../../support/database.js'

const testDatabase = useTestDatabase('pushparams')

describe('push batch parameters', () => {
  it('builds text array literals that PostgreSQL reads back as the same strings', async () => {
    const values = ['plain', '', 'NULL', 'a,b', '{braces}', ' spaced ', 'quote"d', 'back\\slash', '\\"', 'é ✓ 🚀', null]
    const result = await testDatabase
      .client()
      .query<{ back: (string | null)[] }>('SELECT $1::text[] AS back', [textArray(values)])
    expect(result.rows[0]!.back).toEqual(values)
  })

  it('gives one array per field and the payloads as one JSON array, all-NULL fields as NULL', async () => {
    const batch = new PushBatchParams('t1', false)
    const item = {
      queue: 'q',
      partition: 'p "1"',
      id: '0190a000-0000-7000-8000-000000000001',
      transactionId: 'tx\\1',
      generated: true,
      traceId: null,
      producerSub: null,
      payload: { text: 'say "hi"', list: [1, null] },
      encrypted: false,
    }
    batch.add(item)
    batch.add({ ...item, id: '0190a000-0000-7000-8000-000000000002', generated: false, payload: undefined })
    const result = await testDatabase.client().query(
      `SELECT $1::text AS tenant, $2::text[] AS queues, $3::text[] AS partitions, $4::uuid[]::text[] AS ids,
              $5::text[] AS txs, $6::boolean[] AS generated, $7::uuid[] AS traces, $8::text[] AS subs,
              $9::boolean[] AS encrypted, $10::jsonb AS payloads, $11::boolean AS replay, $12::timestamptz[] AS accepted`,
      batch.values(),
    )
    expect(result.rows[0]).toEqual({
      tenant: 't1',
      queues: ['q', 'q'],
      partitions: ['p "1"', 'p "1"'],
      ids: ['0190a000-0000-7000-8000-000000000001', '0190a000-0000-7000-8000-000000000002'],
      txs: ['tx\\1', 'tx\\1'],
      generated: [true, false],
      traces: null,
      subs: null,
      encrypted: [false, false],
      payloads: [{ text: 'say "hi"', list: [1, null] }, null],
      replay: false,
      accepted: null,
    })
  })
})
