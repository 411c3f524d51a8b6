/**
 * Quotas through the gateway (docs/gateway.md, "Quotas and rate limits"), over real HTTP, on two replicas sharing one
 * database in front of a real broker: pushes over a quota are refused whole with 429 naming the quota and a
 * `Retry-After` to the window's end, and the broker's rows show that nothing over the quota was stored; a quota set
 * through one replica's database is applied by the other within 2 s.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApiKey } from '../../src/gateway/store/api-keys.js'
import { createTenant } from '../../src/gateway/store/tenants.js'
import { NO_TENANT_LIMITS, type TenantLimits } from '../../src/gateway/limits/limit-settings.js'
import { writeTenantLimits } from '../../src/gateway/limits/limits-store.js'
import { http, startTestBroker, type TestBroker } from '../support/broker.js'
import { startTestGateway, type TestGateway } from '../support/gateway.js'
import { createEmptyDatabase, dropDatabase } from '../support/cli-harness.js'

const DAY_S = 86_400

/**
 * A tenant with a read-write and a tenant-admin key, and the given quotas, applied on every replica now (their
 * refresh loop would apply them within PROXY_LIMITS_REFRESH_MS; the last test proves that).
 */
async function tenantWith(
  replicas: readonly TestGateway[],
  name: string,
  limits: Partial<TenantLimits>,
): Promise<{ id: string; auth: Record<string, string>; admin: Record<string, string> }> {
  const gateway = replicas[0]!
  const tenant = await createTenant(gateway.db, name)
  const { key } = await createApiKey(gateway.db, { tenant: name, role: 'read-write' })
  const { key: adminKey } = await createApiKey(gateway.db, { tenant: name, role: 'tenant-admin' })
  await writeTenantLimits(gateway.db, tenant.id, { ...NO_TENANT_LIMITS, ...limits })
  for (const replica of replicas) await replica.app.gateway.limits.snapshot.refresh()
  return { id: tenant.id, auth: { authorization: `Bearer ${key}` }, admin: { authorization: `Bearer ${adminKey}` } }
}

function push(gateway: TestGateway, auth: Record<string, string>, items: unknown[]) {
  return http(gateway, 'POST', '/api/v1/push', { items }, auth)
}

/** Messages the broker stores for a tenant, by queue. */
async function storedByQueue(broker: TestBroker, tenantId: string): Promise<Record<string, number>> {
  const result = await broker.db.query<{ name: string; n: number }>(
    `SELECT q.name, count(m.*)::int AS n FROM queen.queues q JOIN queen.partitions p ON p.queue_id = q.id
     LEFT JOIN queen.messages m ON m.partition_id = p.id WHERE q.tenant = $1 GROUP BY q.name`,
    [tenantId],
  )
  return Object.fromEntries(result.rows.map((row) => [row.name, row.n]))
}

async function storedTotal(broker: TestBroker, tenantId: string): Promise<number> {
  return Object.values(await storedByQueue(broker, tenantId)).reduce((sum, n) => sum + n, 0)
}

/** Seconds from now to the next UTC midnight. */
function secondsToMidnight(): number {
  return DAY_S - Math.floor((Date.now() / 1000) % DAY_S)
}

describe('quotas through the gateway', () => {
  let broker: TestBroker
  let database: string
  let first: TestGateway
  let second: TestGateway

  beforeAll(async () => {
    broker = await startTestBroker({ label: 'gw_quota', config: { tenancy: { header: 'X-Queen-Tenant' } } })
    database = await createEmptyDatabase('gw_quota')
    first = await startTestGateway({ upstreams: [broker.url], database })
    second = await startTestGateway({ upstreams: [broker.url], database })
  })
  afterAll(async () => {
    await first?.close()
    await second?.close()
    if (database) await dropDatabase(database)
    await broker?.close()
  })

  it('refuses pushes over messages-per-day whole under a load on two replicas, and stores none of them', async () => {
    const tenant = await tenantWith([first, second], 'daily', { messagesPerDay: 100 })
    // 8 pushers, 4 per replica, each sending 10 pushes of 3 messages: 240 offered against 100.
    const answers = await Promise.all(
      Array.from({ length: 8 }, async (_, pusher) => {
        const gateway = pusher % 2 === 0 ? first : second
        const results: { status: number; body: any; headers: Headers; n: number }[] = []
        for (let round = 0; round < 10; round++) {
          const items = [0, 1, 2].map((i) => ({ queue: 'daily', payload: { pusher, round, i } }))
          results.push({ ...(await push(gateway, tenant.auth, items)), n: items.length })
        }
        return results
      }),
    )
    const all = answers.flat()
    const admitted = all.filter((answer) => answer.status === 200)
    const refused = all.filter((answer) => answer.status === 429)
    expect(admitted.length + refused.length).toBe(80)
    // 33 pushes of 3 fit in 100; one more would be 102.
    expect(admitted.length).toBe(33)
    expect(refused.length).toBe(47)
    for (const answer of refused) {
      expect(answer.body).toMatchObject({
        error: 'quota exceeded: messages-per-day',
        quota: 'messages-per-day',
        limit: 100,
        requested: 3,
      })
      const retryAfter = Number(answer.headers.get('retry-after'))
      expect(Math.abs(retryAfter - secondsToMidnight())).toBeLessThanOrEqual(5)
    }
    expect(await storedTotal(broker, tenant.id)).toBe(99)
  })

  it('refuses a push over payload-bytes-per-day, and a push that fits still goes through', async () => {
    // Each payload {"s":"<90 x>"} is 98 bytes as compact JSON.
    const item = { queue: 'bytes', payload: { s: 'x'.repeat(90) } }
    const tenant = await tenantWith([first, second], 'bytes', { payloadBytesPerDay: 1000 })
    expect((await push(first, tenant.auth, Array(10).fill(item))).status).toBe(200)
    const over = await push(second, tenant.auth, [item])
    expect(over.status).toBe(429)
    expect(over.body).toMatchObject({
      quota: 'payload-bytes-per-day',
      limit: 1000,
      used: 980,
      requested: 98,
    })
    // A small payload still fits: {"s":"y"} is 9 bytes.
    expect((await push(second, tenant.auth, [{ queue: 'bytes', payload: { s: 'y' } }])).status).toBe(200)
    expect(await storedTotal(broker, tenant.id)).toBe(11)
  })

  it('gives the day back when the broker refuses a push (nothing stored)', async () => {
    const tenant = await tenantWith([first, second], 'refund', { messagesPerDay: 2 })
    // A queue name the broker refuses: 400, nothing stored, nothing counted.
    const invalid = await push(first, tenant.auth, [
      { queue: 'x'.repeat(300), payload: 1 },
      { queue: 'x'.repeat(300), payload: 2 },
    ])
    expect(invalid.status).toBe(400)
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(
      (
        await push(first, tenant.auth, [
          { queue: 'refund', payload: 1 },
          { queue: 'refund', payload: 2 },
        ])
      ).status,
    ).toBe(200)
    expect((await push(first, tenant.auth, [{ queue: 'refund', payload: 3 }])).status).toBe(429)
  })

  it('refuses a push or a configure that would create a queue past the queues quota, on either replica', async () => {
    const tenant = await tenantWith([first, second], 'queues', { queues: 3 })
    for (const queue of ['q1', 'q2', 'q3']) {
      expect((await push(first, tenant.auth, [{ queue, payload: queue }])).status).toBe(200)
    }
    const fourth = await push(second, tenant.auth, [{ queue: 'q4', payload: 'q4' }])
    expect(fourth.status).toBe(429)
    expect(fourth.body).toMatchObject({
      error: 'quota exceeded: queues',
      quota: 'queues',
      limit: 3,
      used: 3,
      requested: 1,
    })
    expect(Number(fourth.headers.get('retry-after'))).toBe(60)
    // Refused whole: the item for an existing queue is not stored either.
    const mixed = await push(first, tenant.auth, [
      { queue: 'q1', payload: 'again' },
      { queue: 'q5', payload: 'q5' },
    ])
    expect(mixed.status).toBe(429)
    const configure = await http(first, 'POST', '/api/v1/configure', { queue: 'q6' }, tenant.admin)
    expect(configure.status).toBe(429)
    // Existing queues still take pushes.
    expect((await push(second, tenant.auth, [{ queue: 'q2', payload: 'more' }])).status).toBe(200)
    expect(await storedByQueue(broker, tenant.id)).toEqual({ q1: 1, q2: 2, q3: 1 })
    // Deleting a queue frees its place.
    expect((await http(first, 'DELETE', '/api/v1/resources/queues/q3', undefined, tenant.admin)).status).toBe(200)
    expect((await push(first, tenant.auth, [{ queue: 'q4', payload: 'q4' }])).status).toBe(200)
  })

  it('refuses concurrent pushes to new queues past the quota on two replicas: the count never passes it', async () => {
    const tenant = await tenantWith([first, second], 'racing', { queues: 4 })
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, n) => push(n % 2 ? first : second, tenant.auth, [{ queue: `r${n}`, payload: n }])),
    )
    const admitted = answers.filter((answer) => answer.status === 200).length
    expect(answers.filter((answer) => answer.status === 429).length).toBe(12 - admitted)
    // One creator per tenant at a time over both replicas, each deciding on a listing taken under the lock.
    expect(admitted).toBe(4)
    expect(Object.keys(await storedByQueue(broker, tenant.id))).toHaveLength(4)
  })

  it('refuses a push that would create a partition past the partitions quota', async () => {
    const tenant = await tenantWith([first, second], 'parts', { partitions: 2 })
    expect((await push(first, tenant.auth, [{ queue: 'p', partition: 'a', payload: 1 }])).status).toBe(200)
    expect((await push(second, tenant.auth, [{ queue: 'p', partition: 'b', payload: 2 }])).status).toBe(200)
    const third = await push(first, tenant.auth, [{ queue: 'p', partition: 'c', payload: 3 }])
    expect(third.status).toBe(429)
    expect(third.body).toMatchObject({ quota: 'partitions', limit: 2, used: 2, requested: 1 })
    expect((await push(second, tenant.auth, [{ queue: 'p', partition: 'a', payload: 4 }])).status).toBe(200)
    const partitions = await broker.db.query(
      'SELECT p.name FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id WHERE q.tenant = $1 ORDER BY 1',
      [tenant.id],
    )
    expect(partitions.rows.map((row) => row.name)).toEqual(['a', 'b'])
  })

  it('refuses pushes once the stored-bytes estimate would pass the quota, counted over both replicas', async () => {
    // 98-byte payloads against 1000 bytes: ten fit, whichever replica takes them.
    const item = { queue: 'stored', payload: { s: 'x'.repeat(90) } }
    const tenant = await tenantWith([first, second], 'stored', { storedBytes: 1000 })
    const statuses: number[] = []
    for (let n = 0; n < 14; n++) statuses.push((await push(n % 2 ? first : second, tenant.auth, [item])).status)
    expect(statuses).toEqual([...Array(10).fill(200), ...Array(4).fill(429)])
    const refused = await push(first, tenant.auth, [item])
    expect(refused.status).toBe(429)
    expect(refused.body).toMatchObject({ quota: 'stored-bytes', limit: 1000, used: 980, requested: 98 })
    expect(Number(refused.headers.get('retry-after'))).toBe(60)
    expect(await storedTotal(broker, tenant.id)).toBe(10)
    // Clearing the queue frees the bytes: the next decision lists the tenant again.
    expect((await http(first, 'DELETE', '/api/v1/queues/stored/clear', undefined, tenant.admin)).status).toBe(200)
    expect((await push(first, tenant.auth, [item])).status).toBe(200)
  })

  it('applies a quota set through one replica on the other within 2 s, and lifts it as fast', async () => {
    const tenant = await tenantWith([first, second], 'changing', {})
    const item = [{ queue: 'changing', payload: 1 }]
    expect((await push(second, tenant.auth, item)).status).toBe(200)
    const setAt = Date.now()
    await writeTenantLimits(first.db, tenant.id, { ...NO_TENANT_LIMITS, messagesPerDay: 0 })
    let answer = await push(second, tenant.auth, item)
    while (answer.status === 200 && Date.now() - setAt < 5000) answer = await push(second, tenant.auth, item)
    expect(answer.status).toBe(429)
    expect(Date.now() - setAt).toBeLessThan(2000)

    const liftedAt = Date.now()
    await writeTenantLimits(first.db, tenant.id, NO_TENANT_LIMITS)
    answer = await push(second, tenant.auth, item)
    while (answer.status === 429 && Date.now() - liftedAt < 5000) {
      await new Promise((resolve) => setTimeout(resolve, 20))
      answer = await push(second, tenant.auth, item)
    }
    expect(answer.status).toBe(200)
    expect(Date.now() - liftedAt).toBeLessThan(2000)
  })

  it('leaves a tenant without quotas unlimited, and does not count other tenants', async () => {
    const tenant = await tenantWith([first, second], 'free', {})
    const items = Array.from({ length: 500 }, (_, n) => ({ queue: `free-${n % 7}`, payload: n }))
    expect((await push(first, tenant.auth, items)).status).toBe(200)
    expect(await storedTotal(broker, tenant.id)).toBe(500)
  })
})
