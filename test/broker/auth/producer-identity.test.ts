/**
 * Producer identity (docs/operations.md, "Producer identity"): with auth on, every stored message carries the token's
 * `sub` as producerSub, through push, transaction pushes, stream sink pushes, and through the spool (push-maintenance
 * spools every push; replay stores it). A producerSub in a body is never read.
 */
import { readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { http, startTestBroker, type TestBroker } from '../../support/broker.js'
import { sleep } from '../../support/queen.js'
import { bearer, hsToken, SECRET } from './tokens.js'

let broker: TestBroker
let alice: Record<string, string>
let admin: Record<string, string>
let bob: Record<string, string>
beforeAll(async () => {
  broker = await startTestBroker({
    label: 'auth-producer',
    durable: { JWT_ENABLED: 'true', JWT_SECRET: SECRET },
  })
  alice = bearer(await hsToken({ sub: 'alice', role: 'read-write' }))
  admin = bearer(await hsToken({ sub: 'root', role: 'admin' }))
  bob = bearer(await hsToken({ sub: 'bob', role: 'read-write' }))
})
afterAll(async () => {
  await broker.close()
})

async function producerSubs(queue: string): Promise<(string | null)[]> {
  const { rows } = await broker.db.query(
    `SELECT m.producer_sub FROM queen.messages m JOIN queen.partitions p ON p.id = m.partition_id
       JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = $1 ORDER BY m.position`,
    [queue],
  )
  return rows.map((row) => row.producer_sub)
}

async function waitFor(check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out waiting')
    await sleep(50)
  }
}

async function spoolText(dir: string): Promise<string> {
  let text = ''
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) text += (await readFile(path.join(entry.parentPath, entry.name))).toString('latin1')
  }
  return text
}

describe('producerSub with auth on', () => {
  it('push and transaction pushes record the token sub, not the body', async () => {
    const pushed = await http(
      broker,
      'POST',
      '/api/v1/push',
      { items: [{ queue: 'pid-push', payload: 1, producerSub: 'mallory' }] },
      alice,
    )
    expect(pushed.body[0].status).toBe('queued')
    const tx = await http(
      broker,
      'POST',
      '/api/v1/transaction',
      { operations: [{ type: 'push', queue: 'pid-push', payload: 2, producerSub: 'mallory' }] },
      alice,
    )
    expect(tx.body.success, JSON.stringify(tx.body)).toBe(true)
    expect(await producerSubs('pid-push')).toEqual(['alice', 'alice'])
  })

  it('stream sink pushes record the token sub', async () => {
    const registered = await http(
      broker,
      'POST',
      '/streams/v1/queries',
      { name: 'pid-q', source_queue: 'pid-src', sink_queue: 'pid-sink', config_hash: 'h1' },
      alice,
    )
    expect(registered.status).toBe(200)
    await http(broker, 'POST', '/api/v1/push', { items: [{ queue: 'pid-src', payload: 1 }] }, alice)
    const popped = await http(broker, 'GET', '/api/v1/pop/queue/pid-src?wait=false', undefined, alice)
    const cycle = await http(
      broker,
      'POST',
      '/streams/v1/cycle',
      {
        query_id: registered.body.query_id,
        partition_id: popped.body.partitionId,
        push_items: [{ queue: 'pid-sink', payload: { out: 1 }, producerSub: 'mallory' }],
        ack: { transactionId: popped.body.messages[0].transactionId, leaseId: popped.body.leaseId },
      },
      bob,
    )
    expect(cycle.body.success, JSON.stringify(cycle.body)).toBe(true)
    expect(await producerSubs('pid-sink')).toEqual(['bob'])
  })

  it('a push spooled in push-maintenance keeps the sub on disk and in PostgreSQL after replay', async () => {
    const dir = broker.services.spool?.dir
    expect(dir).toBeDefined()
    expect((await http(broker, 'POST', '/api/v1/system/maintenance', { enabled: true }, admin)).status).toBe(200)
    const pushed = await http(
      broker,
      'POST',
      '/api/v1/push',
      { items: [1, 2, 3].map((n) => ({ queue: 'pid-spool', payload: { n }, producerSub: 'mallory' })) },
      alice,
    )
    expect(pushed.body.map((item: any) => item.status)).toEqual(['buffered', 'buffered', 'buffered'])
    expect(await producerSubs('pid-spool')).toEqual([])
    const onDisk = await spoolText(dir!)
    expect(onDisk.split('"producerSub":"alice"').length - 1).toBe(3)
    expect(onDisk).not.toContain('mallory')

    expect((await http(broker, 'POST', '/api/v1/system/maintenance', { enabled: false }, admin)).status).toBe(200)
    await waitFor(async () => (await producerSubs('pid-spool')).length === 3)
    expect(await producerSubs('pid-spool')).toEqual(['alice', 'alice', 'alice'])
    const popped = await http(broker, 'GET', '/api/v1/pop/queue/pid-spool?wait=false&batch=3', undefined, alice)
    expect(popped.body.messages.map((message: any) => message.producerSub)).toEqual(['alice', 'alice', 'alice'])
  })
})

describe('producerSub with auth off', () => {
  it('is null, whatever the body says', async () => {
    const open = await startTestBroker({ label: 'auth-producer-off' })
    try {
      const pushed = await http(open, 'POST', '/api/v1/push', {
        items: [{ queue: 'pid-off', payload: 1, producerSub: 'mallory' }],
      })
      expect(pushed.body[0].status).toBe('queued')
      const { rows } = await open.db.query('SELECT producer_sub FROM queen.messages')
      expect(rows).toEqual([{ producer_sub: null }])
    } finally {
      await open.close()
    }
  })
})
