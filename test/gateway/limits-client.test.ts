/**
 * Quotas and rate limits as the real Queen JS client sees them through the gateway (docs/gateway.md, "Quotas and rate
 * limits"): under a load of concurrent producers, every push over a quota or a rate limit fails in the client with
 * status 429 and the gateway's message, and the broker stores exactly the pushes that succeeded.
 */
import { afterAll, beforeAll, expect, it } from 'vitest'
import { createApiKey } from '../../src/gateway/store/api-keys.js'
import { createTenant } from '../../src/gateway/store/tenants.js'
import { NO_TENANT_LIMITS, type TenantLimits } from '../../src/gateway/limits/limit-settings.js'
import { writeTenantLimits } from '../../src/gateway/limits/limits-store.js'
import { startTestBroker, type TestBroker } from '../support/broker.js'
import { startTestGateway, type TestGateway } from '../support/gateway.js'
import { createEmptyDatabase, dropDatabase } from '../support/cli-harness.js'
import { closeQueen, describeWithClient, openQueen } from '../compat/client.js'

describeWithClient('quotas and rate limits with the real client', () => {
  let broker: TestBroker
  let database: string
  let gateway: TestGateway

  beforeAll(async () => {
    broker = await startTestBroker({ label: 'gw_limit_client', config: { tenancy: { header: 'X-Queen-Tenant' } } })
    database = await createEmptyDatabase('gw_limit_client')
    gateway = await startTestGateway({ upstreams: [broker.url], database })
  })
  afterAll(async () => {
    await gateway?.close()
    if (database) await dropDatabase(database)
    await broker?.close()
  })

  /** A producer key of a new tenant with these limits, applied on the gateway now. */
  async function producer(name: string, limits: Partial<TenantLimits>): Promise<{ id: string; key: string }> {
    const tenant = await createTenant(gateway.db, name)
    const { key } = await createApiKey(gateway.db, { tenant: name, role: 'producer' })
    await writeTenantLimits(gateway.db, tenant.id, { ...NO_TENANT_LIMITS, ...limits })
    await gateway.app.gateway.limits.snapshot.refresh()
    return { id: tenant.id, key }
  }

  /** `clients` concurrent clients each pushing `rounds` batches of `batch`; counts successes and failures by message. */
  async function pushLoad(key: string, queue: string, clients: number, rounds: number, batch: number) {
    const outcomes = await Promise.all(
      Array.from({ length: clients }, async (_, client) => {
        const queen = await openQueen(gateway, { bearerToken: key, retryAttempts: 1 })
        const results: { ok: boolean; status?: number; message?: string }[] = []
        try {
          for (let round = 0; round < rounds; round++) {
            const items = Array.from({ length: batch }, (_, i) => ({ data: { client, round, i } }))
            try {
              await queen.queue(queue).push(items)
              results.push({ ok: true })
            } catch (error) {
              results.push({ ok: false, status: (error as any).status, message: (error as Error).message })
            }
          }
        } finally {
          await closeQueen(queen)
        }
        return results
      }),
    )
    return outcomes.flat()
  }

  async function stored(tenantId: string): Promise<number> {
    const result = await broker.db.query(
      'SELECT count(*)::int AS n FROM queen.messages m JOIN queen.partitions p ON p.id = m.partition_id JOIN queen.queues q ON q.id = p.queue_id WHERE q.tenant = $1',
      [tenantId],
    )
    return result.rows[0].n
  }

  it('fails pushes over messages-per-day in the client with 429, and the broker holds only the others', async () => {
    const tenant = await producer('client-daily', { messagesPerDay: 50 })
    const results = await pushLoad(tenant.key, 'client-daily', 5, 10, 2)
    const succeeded = results.filter((r) => r.ok).length
    const refused = results.filter((r) => !r.ok)
    expect(succeeded).toBe(25)
    expect(refused).toHaveLength(25)
    for (const failure of refused) {
      expect(failure).toMatchObject({ status: 429, message: 'quota exceeded: messages-per-day' })
    }
    expect(await stored(tenant.id)).toBe(50)
  })

  it('fails pushes over messages-per-second in the client with 429, and stores exactly the admitted ones', async () => {
    const tenant = await producer('client-rate', { messagesPerSecond: 20 })
    const results = await pushLoad(tenant.key, 'client-rate', 4, 15, 2)
    const succeeded = results.filter((r) => r.ok).length
    const refused = results.filter((r) => !r.ok)
    expect(refused.length).toBeGreaterThan(0)
    for (const failure of refused) expect(failure).toMatchObject({ status: 429, message: 'rate limit exceeded' })
    expect(await stored(tenant.id)).toBe(succeeded * 2)
  })
})
