/**
 * Tenant isolation of every read route (docs/operations.md, "Tenancy"): two tenants own a queue `orders` in the same
 * namespace and task. acme's queue holds messages, a dead letter, a lagging group and a trace, all under
 * names only acme uses. Every GET route read as globex, and every pop globex can make, shows none of it:
 * neither acme's names, ids and payloads, nor acme's counts in the totals.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { http, startTestBroker, type TestBroker } from '../../support/broker.js'

const ACME = { 'X-Queen-Tenant': 'acme' }
const GLOBEX = { 'X-Queen-Tenant': 'globex' }

/** Strings that exist only in acme's data; filled in by the setup with its ids. */
const acmeOnly = ['ACME-SECRET', 'p-acme', 'acme-cg', 'acme-trace']

let broker: TestBroker
let acmeMessage = { partitionId: '', transactionId: '' }

async function configure(headers: Record<string, string>) {
  const answer = await http(
    broker,
    'POST',
    '/api/v1/configure',
    { queue: 'orders', namespace: 'shop', task: 'billing', options: { retryLimit: 0, deadLetterQueue: true } },
    headers,
  )
  expect(answer.status).toBe(200)
}

beforeAll(async () => {
  broker = await startTestBroker({ label: 'tenancy-listings', config: { tenancy: { header: 'X-Queen-Tenant' } } })
  await configure(ACME)
  await configure(GLOBEX)
  const items = [1, 2, 3].map((n) => ({
    queue: 'orders',
    partition: 'p-acme',
    payload: { secret: `ACME-SECRET-${n}` },
  }))
  expect((await http(broker, 'POST', '/api/v1/push', { items }, ACME)).status).toBe(200)
  const globexPush = { items: [{ queue: 'orders', partition: 'p-globex', payload: { note: 'globex' } }] }
  expect((await http(broker, 'POST', '/api/v1/push', globexPush, GLOBEX)).status).toBe(200)

  // acme's group takes one message and fails it into the DLQ (retryLimit 0); the other two lag behind.
  const pop = await http(
    broker,
    'GET',
    '/api/v1/pop/queue/orders?consumerGroup=acme-cg&batch=1&wait=false',
    undefined,
    ACME,
  )
  expect(pop.body.messages).toHaveLength(1)
  const popped = pop.body.messages[0] as { partitionId: string; transactionId: string; leaseId: string }
  acmeMessage = { partitionId: popped.partitionId, transactionId: popped.transactionId }
  const ack = { ...acmeMessage, leaseId: popped.leaseId, consumerGroup: 'acme-cg', status: 'failed', error: 'boom' }
  expect((await http(broker, 'POST', '/api/v1/ack', ack, ACME)).body[0].success).toBe(true)
  const trace = { ...acmeMessage, consumerGroup: 'acme-cg', data: { step: 1 }, traceNames: ['acme-trace'] }
  expect((await http(broker, 'POST', '/api/v1/traces', trace, ACME)).body.success).toBe(true)
  acmeOnly.push(popped.partitionId, popped.transactionId)
  const { rows } = await broker.db.query<{ transaction_id: string }>(
    'SELECT transaction_id FROM queen.messages WHERE partition_id = $1',
    [popped.partitionId],
  )
  acmeOnly.push(...rows.map((row) => row.transaction_id))

  await broker.services.observability.metricsJob.runOnce()
  await broker.services.observability.refreshStats()
})
afterAll(async () => {
  await broker.close()
})

const P = () => acmeMessage.partitionId
const TX = () => acmeMessage.transactionId

// Every GET tenant route of docs/http-api.md, "Route table", with acme's names and ids where a route takes them.
const READS: [string, () => string][] = [
  ['queues', () => '/api/v1/resources/queues'],
  ['queue detail', () => '/api/v1/resources/queues/orders'],
  ['partitions', () => '/api/v1/resources/partitions?queue=orders'],
  ['namespaces', () => '/api/v1/resources/namespaces'],
  ['tasks', () => '/api/v1/resources/tasks'],
  ['overview', () => '/api/v1/resources/overview'],
  ['messages', () => '/api/v1/messages?queue=orders'],
  ['messages, no filter', () => '/api/v1/messages'],
  ['message by id', () => `/api/v1/messages/${P()}/${TX()}`],
  ['dlq', () => '/api/v1/dlq?queue=orders'],
  ['dlq, no filter', () => '/api/v1/dlq'],
  ['consumer groups', () => '/api/v1/consumer-groups'],
  ['lagging groups', () => '/api/v1/consumer-groups/lagging?minLagSeconds=0'],
  ['one group', () => '/api/v1/consumer-groups/acme-cg'],
  ['traces by message', () => `/api/v1/traces/${P()}/${TX()}`],
  ['traces by name', () => '/api/v1/traces/by-name/acme-trace'],
  ['trace names', () => '/api/v1/traces/names'],
  ['status', () => '/api/v1/status'],
  ['status queues', () => '/api/v1/status/queues'],
  ['status queue', () => '/api/v1/status/queues/orders'],
  ['status queue messages', () => '/api/v1/status/queues/orders/messages'],
  ['status analytics', () => '/api/v1/status/analytics'],
  ['queue lag', () => '/api/v1/analytics/queue-lag'],
  ['queue ops', () => '/api/v1/analytics/queue-ops'],
  ['parked replicas', () => '/api/v1/analytics/queue-parked-replicas'],
  ['retention', () => '/api/v1/analytics/retention'],
]

describe("a tenant's read routes show nothing of another tenant", () => {
  it.each(READS)('%s', async (_name, path) => {
    const answer = await http(broker, 'GET', path(), undefined, GLOBEX)
    expect(answer.status).toBeLessThan(500)
    const text = JSON.stringify(answer.body)
    for (const secret of acmeOnly) expect(text, `${path()} answered ${text.slice(0, 400)}`).not.toContain(secret)
  })

  // The control: the same routes read as acme do show acme's data, so the checks above can fail.
  it.each([
    ['messages', () => '/api/v1/messages?queue=orders', 'p-acme'],
    ['message by id', () => `/api/v1/messages/${P()}/${TX()}`, 'ACME-SECRET'],
    ['dlq', () => '/api/v1/dlq?queue=orders', 'ACME-SECRET'],
    ['traces by name', () => '/api/v1/traces/by-name/acme-trace', TX()],
    ['trace names', () => '/api/v1/traces/names', 'acme-trace'],
    ['consumer groups', () => '/api/v1/consumer-groups', 'acme-cg'],
    ['partitions', () => '/api/v1/resources/partitions?queue=orders', 'p-acme'],
  ])('%s read as acme shows acme data', async (_name, path, expected) => {
    const answer = await http(broker, 'GET', path(), undefined, ACME)
    expect(JSON.stringify(answer.body)).toContain(expected)
  })

  it("counts only the caller's messages in the totals", async () => {
    const status = await http(broker, 'GET', '/api/v1/status', undefined, GLOBEX)
    expect(status.body.messages.total).toBe(1)
    expect(status.body.deadLetterQueue.totalMessages).toBe(0)
    const acmeStatus = await http(broker, 'GET', '/api/v1/status', undefined, ACME)
    expect(acmeStatus.body.messages.total).toBe(3)
    const overview = await http(broker, 'GET', '/api/v1/resources/overview', undefined, GLOBEX)
    expect(overview.body.messages.total).toBe(1)
  })

  it("does not show a tenant the replica's request counters, which count every tenant (issue 40)", async () => {
    // acme pushed, popped and acked on this replica; globex pushed once.
    expect(broker.services.observability.collector.totals.popRequests).toBeGreaterThan(0)
    const status = await http(broker, 'GET', '/api/v1/status', undefined, GLOBEX)
    expect(status.body.messages.requests).toEqual({ push: 0, pop: 0, ack: 0 })
    expect(status.body.messages.batchEfficiency).toEqual({ push: 0, pop: 0, ack: 0 })
  })

  it('does not show a tenant the pops another tenant parked (issue 40)', async () => {
    const parked = http(broker, 'GET', '/api/v1/pop/queue/acme-idle?wait=true&timeout=5000', undefined, ACME)
    try {
      await expect.poll(() => broker.services.waiters.parked).toBe(1)
      await broker.services.observability.metricsJob.runOnce()
      // The replica's own row counts acme's parked pop ...
      const { rows } = await broker.db.query('SELECT max(parked_pops)::int AS n FROM queen.metrics_server_minute')
      expect(rows[0].n).toBe(1)
      // ... which globex never sees.
      const answer = await http(broker, 'GET', '/api/v1/analytics/queue-parked-replicas', undefined, GLOBEX)
      const counts = answer.body.replicas.flatMap((replica: any) =>
        replica.series.map((point: any) => point.parkedPops),
      )
      expect(counts.filter((count: number) => count > 0)).toEqual([])
    } finally {
      const push = { items: [{ queue: 'acme-idle', payload: { secret: 'ACME-SECRET-4' } }] }
      await http(broker, 'POST', '/api/v1/push', push, ACME)
      await parked
    }
  })

  it.each([
    ['by queue', '/api/v1/pop/queue/orders?batch=10&wait=false'],
    ['by namespace', '/api/v1/pop?namespace=shop&batch=10&wait=false'],
    ['by task', '/api/v1/pop?task=billing&batch=10&wait=false'],
    ['by namespace and group', '/api/v1/pop?namespace=shop&consumerGroup=acme-cg&batch=10&wait=false'],
  ])("a pop %s delivers only the caller's messages", async (_name, path) => {
    const answer = await http(broker, 'GET', path, undefined, GLOBEX)
    const text = JSON.stringify(answer.body ?? '')
    // The group is named in the request, so it is echoed; acme's payloads, partition and ids must not be.
    for (const secret of acmeOnly.filter((name) => name !== 'acme-cg')) expect(text).not.toContain(secret)
    const messages = (answer.body?.messages ?? []) as { data: unknown }[]
    expect(messages.every((message) => JSON.stringify(message.data).includes('globex'))).toBe(true)
  })
})
