import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { http, startTestBroker, type TestBroker } from '../../support/broker.js'

const ACME = { 'X-Queen-Tenant': 'acme' }
const GLOBEX = { 'X-Queen-Tenant': 'globex' }

interface Popped {
  partitionId: string
  transactionId: string
  leaseId: string
}

/** The consumer row of a partition (queue mode): cursor and lease as stored. */
interface ConsumerRow {
  cursor_position: string
  lease_id: string | null
  lease_expires_at: Date | null
}

describe('tenant isolation of acks and leases (docs/operations.md, "Tenancy")', () => {
  let broker: TestBroker
  beforeAll(async () => {
    broker = await startTestBroker({ label: 'tenancy-isolation', config: { tenancy: { header: 'X-Queen-Tenant' } } })
  })
  afterAll(async () => {
    await broker.close()
  })

  /** Pushes `count` messages to globex's `orders` (partition `p`) and pops them all under one lease. */
  async function globexLease(partition: string, count: number): Promise<Popped[]> {
    const items = Array.from({ length: count }, (_, index) => ({ queue: 'orders', partition, payload: { index } }))
    expect((await http(broker, 'POST', '/api/v1/push', { items }, GLOBEX)).status).toBe(200)
    // acme owns a queue of the same name, so a lookup by name alone would find two queues.
    await http(broker, 'POST', '/api/v1/push', { items: [{ queue: 'orders', partition, payload: 'acme' }] }, ACME)
    const pop = await http(
      broker,
      'GET',
      `/api/v1/pop/queue/orders/partition/${partition}?batch=${count}&wait=false`,
      undefined,
      GLOBEX,
    )
    expect(pop.status).toBe(200)
    expect(pop.body.messages).toHaveLength(count)
    return pop.body.messages as Popped[]
  }

  async function consumerOf(partitionId: string): Promise<ConsumerRow> {
    const { rows } = await broker.db.query<ConsumerRow>(
      `SELECT cursor_position::text, lease_id::text, lease_expires_at FROM queen.consumers
       WHERE partition_id = $1 AND consumer_group = '__QUEUE_MODE__'`,
      [partitionId],
    )
    expect(rows).toHaveLength(1)
    return rows[0]!
  }

  async function settledStates(partitionId: string): Promise<number> {
    const { rows } = await broker.db.query<{ n: string }>(
      `SELECT count(*)::text AS n FROM queen.message_states WHERE partition_id = $1 AND settled`,
      [partitionId],
    )
    return Number(rows[0]!.n)
  }

  it("a single ack of another tenant's message answers not found and changes nothing", async () => {
    const [message] = await globexLease('single', 1)
    const ack = { ...message!, status: 'completed' }
    const before = await consumerOf(message!.partitionId)

    const refused = await http(broker, 'POST', '/api/v1/ack', ack, ACME)
    expect(refused.status).toBe(200)
    expect(refused.body[0]).toMatchObject({ success: false, error: 'Message not found' })
    expect(await consumerOf(message!.partitionId)).toEqual(before)

    const failed = await http(broker, 'POST', '/api/v1/ack', { ...ack, status: 'failed', error: 'boom' }, ACME)
    expect(failed.body[0]).toMatchObject({ success: false, error: 'Message not found' })
    expect(await consumerOf(message!.partitionId)).toEqual(before)
    expect(await settledStates(message!.partitionId)).toBe(0)

    const owner = await http(broker, 'POST', '/api/v1/ack', ack, GLOBEX)
    expect(owner.body[0]).toMatchObject({ success: true, error: null })
    const after = await consumerOf(message!.partitionId)
    expect(after.lease_id).toBeNull()
    expect(Number(after.cursor_position)).toBeGreaterThan(Number(before.cursor_position))
  })

  it("a batch ack of another tenant's whole lease answers not found item by item and changes nothing", async () => {
    const messages = await globexLease('batch', 3)
    const acknowledgments = messages.map((message) => ({ ...message, status: 'completed' }))
    const partitionId = messages[0]!.partitionId
    const before = await consumerOf(partitionId)

    const refused = await http(broker, 'POST', '/api/v1/ack/batch', { acknowledgments }, ACME)
    expect(refused.status).toBe(200)
    expect(refused.body).toHaveLength(3)
    for (const item of refused.body) expect(item).toMatchObject({ success: false, error: 'Message not found' })
    expect(await consumerOf(partitionId)).toEqual(before)

    // A mixed batch (not the whole-lease path): the same answer.
    const mixed = acknowledgments.map((ack, index) => (index === 0 ? { ...ack, status: 'retry' } : ack))
    const refusedMixed = await http(broker, 'POST', '/api/v1/ack/batch', { acknowledgments: mixed }, ACME)
    for (const item of refusedMixed.body) expect(item).toMatchObject({ success: false, error: 'Message not found' })
    expect(await consumerOf(partitionId)).toEqual(before)
    expect(await settledStates(partitionId)).toBe(0)

    const owner = await http(broker, 'POST', '/api/v1/ack/batch', { acknowledgments }, GLOBEX)
    for (const item of owner.body) expect(item).toMatchObject({ success: true })
    expect((await consumerOf(partitionId)).lease_id).toBeNull()
  })

  it("one batch acks the caller's message and refuses the other tenant's", async () => {
    const [theirs] = await globexLease('shared-batch', 1)
    const pop = await http(broker, 'GET', '/api/v1/pop/queue/orders/partition/shared-batch?wait=false', undefined, ACME)
    const mine = pop.body.messages[0] as Popped
    const answer = await http(
      broker,
      'POST',
      '/api/v1/ack/batch',
      { acknowledgments: [mine, theirs!].map((message) => ({ ...message, status: 'completed' })) },
      ACME,
    )
    expect(answer.body[0]).toMatchObject({ success: true })
    expect(answer.body[1]).toMatchObject({ success: false, error: 'Message not found' })
    expect((await consumerOf(mine.partitionId)).lease_id).toBeNull()
    expect((await consumerOf(theirs!.partitionId)).lease_id).toBe(theirs!.leaseId)
  })

  it("extending another tenant's lease answers Lease not found and keeps its expiry", async () => {
    const [message] = await globexLease('lease', 1)
    const before = await consumerOf(message!.partitionId)

    const refused = await http(broker, 'POST', `/api/v1/lease/${message!.leaseId}/extend`, { seconds: 3600 }, ACME)
    expect(refused.status).toBe(200)
    expect(refused.body[0]).toMatchObject({ success: false, error: 'Lease not found', expiresAt: null })
    expect(await consumerOf(message!.partitionId)).toEqual(before)

    const owner = await http(broker, 'POST', `/api/v1/lease/${message!.leaseId}/extend`, { seconds: 3600 }, GLOBEX)
    expect(owner.body[0]).toMatchObject({ success: true, error: null })
    const after = await consumerOf(message!.partitionId)
    expect(after.lease_expires_at!.getTime()).toBeGreaterThan(before.lease_expires_at!.getTime())
  })

  it("a trace naming another tenant's message answers Message not found and stores nothing", async () => {
    const [message] = await globexLease('traced', 1)
    const trace = { partitionId: message!.partitionId, transactionId: message!.transactionId, data: { step: 1 } }
    const refused = await http(broker, 'POST', '/api/v1/traces', trace, ACME)
    expect(refused.status).toBe(200)
    expect(refused.body).toEqual({ success: false, error: 'Message not found' })
    const count = async () =>
      Number(
        (
          await broker.db.query<{ n: string }>(`SELECT count(*)::text AS n FROM queen.traces WHERE partition_id = $1`, [
            message!.partitionId,
          ])
        ).rows[0]!.n,
      )
    expect(await count()).toBe(0)
    const owner = await http(broker, 'POST', '/api/v1/traces', trace, GLOBEX)
    expect(owner.body).toMatchObject({ success: true })
    expect(await count()).toBe(1)
  })

  it("a transaction cannot ack another tenant's message nor require its lease, and pushes into the caller's tenant", async () => {
    const [message] = await globexLease('tx', 1)
    const before = await consumerOf(message!.partitionId)
    const ackOp = { type: 'ack', ...message! }
    const push = { type: 'push', items: [{ queue: 'tx-out', payload: 1, transactionId: 'tenancy-tx-1' }] }

    const acked = await http(broker, 'POST', '/api/v1/transaction', { operations: [ackOp, push] }, ACME)
    expect(acked.status).toBe(200)
    expect(acked.body).toMatchObject({ success: false })
    expect(acked.body.error).toContain('Message not found')

    const required = await http(
      broker,
      'POST',
      '/api/v1/transaction',
      { operations: [push], requiredLeases: [message!.leaseId] },
      ACME,
    )
    expect(required.body).toMatchObject({ success: false })
    expect(required.body.error).toContain('Lease expired or not found')
    expect(await consumerOf(message!.partitionId)).toEqual(before)
    const stored = await broker.db.query(`SELECT 1 FROM queen.messages WHERE transaction_id = 'tenancy-tx-1'`)
    expect(stored.rows).toHaveLength(0)

    const pushed = await http(broker, 'POST', '/api/v1/transaction', { operations: [push] }, ACME)
    expect(pushed.body).toMatchObject({ success: true })
    const owners = await broker.db.query<{ tenant: string }>(
      `SELECT q.tenant FROM queen.messages m JOIN queen.partitions p ON p.id = m.partition_id
       JOIN queen.queues q ON q.id = p.queue_id WHERE m.transaction_id = 'tenancy-tx-1'`,
    )
    expect(owners.rows.map((row) => row.tenant)).toEqual(['acme'])

    const owner = await http(
      broker,
      'POST',
      '/api/v1/transaction',
      { operations: [ackOp], requiredLeases: [message!.leaseId] },
      GLOBEX,
    )
    expect(owner.body).toMatchObject({ success: true })
    expect((await consumerOf(message!.partitionId)).lease_id).toBeNull()
  })

  it("message admin routes by partitionId answer 404 for another tenant's message and leave it stored", async () => {
    const [message] = await globexLease('admin', 1)
    const path = `/api/v1/messages/${message!.partitionId}/${message!.transactionId}`
    const stored = async () =>
      (
        await broker.db.query(`SELECT 1 FROM queen.messages WHERE partition_id = $1 AND transaction_id = $2`, [
          message!.partitionId,
          message!.transactionId,
        ])
      ).rows.length
    expect((await http(broker, 'GET', path, undefined, ACME)).status).toBe(404)
    // docs/http-api.md, "Delete a message": a delete answers 200 both ways.
    const deleted = await http(broker, 'DELETE', path, undefined, ACME)
    expect(deleted.body).toMatchObject({ success: false, message: 'Message not found' })
    expect((await http(broker, 'POST', `${path}/dlq`, {}, ACME)).status).toBe(404)
    expect(await stored()).toBe(1)
    const deadLetters = await broker.db.query(`SELECT 1 FROM queen.dead_letters WHERE partition_id = $1`, [
      message!.partitionId,
    ])
    expect(deadLetters.rows).toHaveLength(0)

    // The owner dead-letters it: acme's DLQ listing and trace reads still see nothing of it.
    expect((await http(broker, 'POST', `${path}/dlq`, {}, GLOBEX)).status).toBe(200)
    // Now in globex's DLQ: acme's retry of it is refused and the DLQ entry stays.
    expect((await http(broker, 'POST', `${path}/retry`, {}, ACME)).status).toBe(404)
    const kept = await broker.db.query(`SELECT 1 FROM queen.dead_letters WHERE partition_id = $1`, [
      message!.partitionId,
    ])
    expect(kept.rows).toHaveLength(1)
    await http(broker, 'POST', '/api/v1/traces', { ...message!, data: { step: 1 } }, GLOBEX)
    const dlqAcme = await http(broker, 'GET', '/api/v1/dlq?queue=orders', undefined, ACME)
    expect(dlqAcme.status).toBe(200)
    expect(JSON.stringify(dlqAcme.body)).not.toContain(message!.transactionId)
    const dlqGlobex = await http(broker, 'GET', '/api/v1/dlq?queue=orders', undefined, GLOBEX)
    expect(JSON.stringify(dlqGlobex.body)).toContain(message!.transactionId)
    const traces = await http(
      broker,
      'GET',
      `/api/v1/traces/${message!.partitionId}/${message!.transactionId}`,
      undefined,
      ACME,
    )
    expect(JSON.stringify(traces.body)).not.toContain('step')
    const ownTraces = await http(
      broker,
      'GET',
      `/api/v1/traces/${message!.partitionId}/${message!.transactionId}`,
      undefined,
      GLOBEX,
    )
    expect(JSON.stringify(ownTraces.body)).toContain('step')
  })

  it("queue-name and consumer-group routes act on the caller's own queue orders only", async () => {
    await http(broker, 'POST', '/api/v1/push', { items: [{ queue: 'orders', partition: 'cg', payload: 'g' }] }, GLOBEX)
    const popped = await http(
      broker,
      'GET',
      '/api/v1/pop/queue/orders?consumerGroup=globex-group&batch=1&wait=false',
      undefined,
      GLOBEX,
    )
    expect(popped.body.messages).toHaveLength(1)
    const groupRows = async () =>
      (await broker.db.query(`SELECT 1 FROM queen.consumers WHERE consumer_group = 'globex-group'`)).rows.length
    const before = await groupRows()
    expect(before).toBeGreaterThan(0)

    const listed = await http(broker, 'GET', '/api/v1/consumer-groups', undefined, ACME)
    expect(listed.status).toBe(200)
    expect(JSON.stringify(listed.body)).not.toContain('globex-group')
    expect(JSON.stringify((await http(broker, 'GET', '/api/v1/consumer-groups', undefined, GLOBEX)).body)).toContain(
      'globex-group',
    )
    const described = await http(broker, 'GET', '/api/v1/consumer-groups/globex-group', undefined, ACME)
    expect(JSON.stringify(described.body)).not.toContain('orders')
    const ownDescribed = await http(broker, 'GET', '/api/v1/consumer-groups/globex-group', undefined, GLOBEX)
    expect(JSON.stringify(ownDescribed.body)).toContain('orders')
    await http(broker, 'DELETE', '/api/v1/consumer-groups/globex-group', undefined, ACME)
    expect(await groupRows()).toBe(before)

    const globexMessages = async () =>
      Number(
        (
          await broker.db.query<{ n: string }>(
            `SELECT count(*)::text AS n FROM queen.messages m JOIN queen.partitions p ON p.id = m.partition_id
             JOIN queen.queues q ON q.id = p.queue_id WHERE q.tenant = 'globex' AND q.name = 'orders'`,
          )
        ).rows[0]!.n,
      )
    const stored = await globexMessages()
    expect((await http(broker, 'DELETE', '/api/v1/queues/orders/clear', undefined, ACME)).status).toBe(200)
    expect(await globexMessages()).toBe(stored)
    expect((await http(broker, 'DELETE', '/api/v1/resources/queues/orders', undefined, ACME)).status).toBe(200)
    const queues = await broker.db.query<{ tenant: string }>(
      `SELECT tenant FROM queen.queues WHERE name = 'orders' ORDER BY tenant`,
    )
    expect(queues.rows.map((row) => row.tenant)).toEqual(['globex'])
    expect(await globexMessages()).toBe(stored)
    expect((await http(broker, 'GET', '/api/v1/resources/queues/orders', undefined, ACME)).status).toBe(404)
    expect((await http(broker, 'GET', '/api/v1/resources/queues/orders', undefined, GLOBEX)).status).toBe(200)
  })
})
