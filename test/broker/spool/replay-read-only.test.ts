/**
 * Spool replay against a server that cannot write (issue 38): a read-only spell of any length pauses
 * replay and sets no record aside; the records are stored once the server writes again. Before, each
 * record was retried alone a few times and then quarantined, so a `buffered` push was never stored.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import path from 'node:path'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SpoolRecord } from '../../../src/broker/spool/record-format.js'
import { SpoolReplayer } from '../../../src/broker/spool/spool-replayer.js'
import { Spool } from '../../../src/broker/spool/spool.js'
import { startTestBroker, type TestBroker } from '../../support/broker.js'
import { setDatabaseReadOnly } from '../../support/database.js'

const log = pino({ enabled: false })
let broker: TestBroker
let dir: string

beforeAll(async () => {
  broker = await startTestBroker({ label: 'replayro' })
  dir = await mkdtemp('/tmp/queenctl-replay-ro-')
})
afterAll(async () => {
  await setDatabaseReadOnly(broker.database, false)
  await broker.close()
  await rm(dir, { recursive: true, force: true })
})

function records(count: number): SpoolRecord[] {
  return Array.from({ length: count }, (_, n) => ({
    v: 1,
    tenant: '',
    queue: 'replay-ro',
    partition: 'p',
    transactionId: `replay-ro-${n}`,
    traceId: null,
    producerSub: null,
    acceptedAt: Date.now(),
    requestId: 'test',
    encrypted: false,
    payload: { n },
  }))
}

describe('spool replay against a read-only server', () => {
  it('pauses without quarantining anything, and stores every record once the server writes again', async () => {
    const spool = await Spool.open(
      { dir, serverId: 'test', eventsPerFile: 10_000, flushMs: 50, maxBytes: 0, maxRecordBytes: 1024 * 1024 },
      log,
    )
    try {
      await spool.append(records(12))
      const unavailable: unknown[] = []
      const replayer = new SpoolReplayer(
        spool,
        (tenant, batch) => broker.services.push.replay(tenant, batch),
        {
          maxBatch: 5,
          canReplay: () => true,
          poisonAttempts: 2,
          poisonBackoffMs: 5,
          onUnavailable: (error) => unavailable.push(error),
        },
        log,
      )
      await setDatabaseReadOnly(broker.database, true)
      for (let attempt = 0; attempt < 3; attempt++) {
        replayer.resume()
        await replayer.runOnce()
      }
      expect(await readdir(path.join(dir, 'failed'))).toEqual([])
      expect(spool.counters.quarantined).toBe(0)
      expect(spool.size.records).toBe(12)
      expect(unavailable.length).toBe(3)

      await setDatabaseReadOnly(broker.database, false)
      replayer.resume()
      await replayer.runOnce()
      expect(spool.size.records).toBe(0)
      const stored = await broker.db.query<{ n: number }>(
        `SELECT (m.payload->>'n')::int AS n FROM queen.messages m JOIN queen.partitions p ON p.id = m.partition_id
         JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = 'replay-ro' ORDER BY m.position`,
      )
      expect(stored.rows.map((row) => row.n)).toEqual(Array.from({ length: 12 }, (_, n) => n))
    } finally {
      await spool.close()
    }
  })
})
