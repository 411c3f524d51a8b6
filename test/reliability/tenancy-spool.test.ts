/**
 * Tenancy through a PostgreSQL outage (docs/operations.md, "Tenancy": the spool carries the tenant), ledger-checked: a
 * real `queenctl serve` with QUEEN_TENANCY_HEADER reaches PostgreSQL through a fault proxy. Two tenants push
 * into their own queue `orders` (same partition names) while PostgreSQL is refused; every push is buffered,
 * and after the replay each tenant's queue holds exactly its own messages, once each, in order.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { http } from '../support/broker.js'
import { createTestDatabase, databaseConnection, dropTestDatabase } from '../support/database.js'
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy.js'
import { sleep } from '../support/queen.js'
import { startServe } from '../support/serve-process.js'

const TENANTS = ['acme', 'globex'] as const
const PER_PARTITION = 20

let proxy: FaultProxy
let database: string
let db: pg.Pool
let spool: string

beforeAll(async () => {
  const connection = inject('pgConnection')
  proxy = await startFaultProxy({ host: connection.host, port: connection.port })
  database = await createTestDatabase('tenancyspool')
  db = new pg.Pool({ ...databaseConnection(database), max: 2 })
  spool = await mkdtemp('/tmp/queenctl-tenancy-spool-')
})
afterAll(async () => {
  await db.end()
  await proxy.close()
  await dropTestDatabase(database)
  await rm(spool, { recursive: true, force: true })
})

/** Stored messages of a tenant's `orders`, as "partition:seq" in partition then position order. */
async function storedOf(tenant: string): Promise<string[]> {
  const { rows } = await db.query<{ partition: string; seq: number; owner: string }>(
    `SELECT p.name AS partition, (m.payload->>'seq')::int AS seq, m.payload->>'owner' AS owner
     FROM queen.messages m JOIN queen.partitions p ON p.id = m.partition_id JOIN queen.queues q ON q.id = p.queue_id
     WHERE q.tenant = $1 AND q.name = 'orders' ORDER BY p.name, m.position`,
    [tenant],
  )
  for (const row of rows) expect(row.owner).toBe(tenant)
  return rows.map((row) => `${row.partition}:${row.seq}`)
}

describe('tenancy through the spool', () => {
  it("replays each tenant's buffered pushes into that tenant's queue, once each, in order", async () => {
    const broker = await startServe({
      pgPort: proxy.port,
      database,
      spool,
      env: { QUEEN_TENANCY_HEADER: 'X-Queen-Tenant' },
    })
    try {
      for (const tenant of TENANTS) {
        const warm = await http(
          broker,
          'POST',
          '/api/v1/push',
          { items: [{ queue: 'orders', partition: 'warm', payload: { owner: tenant, seq: 0 } }] },
          { 'X-Queen-Tenant': tenant },
        )
        expect(warm.body[0].status).toBe('queued')
      }

      proxy.setMode('refuse')
      const expected = new Map<string, string[]>(TENANTS.map((tenant) => [tenant, ['warm:0']]))
      for (let seq = 1; seq <= PER_PARTITION; seq++) {
        for (const tenant of TENANTS) {
          const items = ['p1', 'p2'].map((partition) => ({
            queue: 'orders',
            partition,
            transactionId: `${tenant}-${partition}-${seq}`,
            payload: { owner: tenant, seq },
          }))
          const answer = await http(broker, 'POST', '/api/v1/push', { items }, { 'X-Queen-Tenant': tenant })
          expect(answer.status, JSON.stringify(answer.body)).toBe(200)
          expect(answer.body.map((item: { status: string }) => item.status)).toEqual(['buffered', 'buffered'])
        }
      }
      for (const tenant of TENANTS) {
        const list = expected.get(tenant)!
        for (const partition of ['p1', 'p2'])
          for (let seq = 1; seq <= PER_PARTITION; seq++) list.push(`${partition}:${seq}`)
        list.sort(
          (a, b) =>
            a.split(':')[0]!.localeCompare(b.split(':')[0]!) || Number(a.split(':')[1]) - Number(b.split(':')[1]),
        )
      }

      proxy.setMode('pass')
      const total = TENANTS.length * (1 + 2 * PER_PARTITION)
      const deadline = Date.now() + 60_000
      for (;;) {
        const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM queen.messages')
        if (rows[0]!.n >= total || Date.now() > deadline) break
        await sleep(100)
      }
      for (const tenant of TENANTS) expect(await storedOf(tenant)).toEqual(expected.get(tenant))
      // Each tenant pops its own messages only.
      for (const tenant of TENANTS) {
        const pop = await http(broker, 'GET', '/api/v1/pop/queue/orders/partition/p1?batch=100&wait=false', undefined, {
          'X-Queen-Tenant': tenant,
        })
        const owners = new Set(pop.body.messages.map((message: { data: { owner: string } }) => message.data.owner))
        expect([...owners]).toEqual([tenant])
        expect(pop.body.messages).toHaveLength(PER_PARTITION)
      }
    } finally {
      proxy.setMode('pass')
      await broker.process.kill()
    }
  })
})
