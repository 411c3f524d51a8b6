/**
 * What carries the tenant besides the routes (docs/operations.md, "Tenancy"): wake-ups of parked pops, and the
 * Prometheus labels. Two tenants own a queue `orders`; a push into one wakes only its own parked pops, and
 * each tenant's counters are series of their own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { http, startTestBroker, WAKE_ONLY_POP_WAIT, type TestBroker } from '../../support/broker.js'
import { sleep } from '../../support/queen.js'

const ACME = { 'X-Queen-Tenant': 'acme' }
const GLOBEX = { 'X-Queen-Tenant': 'globex' }

let broker: TestBroker
beforeAll(async () => {
  broker = await startTestBroker({
    label: 'tenancy-carried',
    // Only wake-ups answer a parked pop within the test: the re-check timer is a minute.
    config: { tenancy: { header: 'X-Queen-Tenant' }, popWait: WAKE_ONLY_POP_WAIT },
  })
})
afterAll(async () => {
  await broker.close()
})

async function push(headers: Record<string, string>, partition: string, payload: unknown) {
  const answer = await http(
    broker,
    'POST',
    '/api/v1/push',
    { items: [{ queue: 'orders', partition, payload }] },
    headers,
  )
  expect(answer.body[0].status).toBe('queued')
}

/** queen_pop_wakeups_total of the wakes made by this broker's own pushes and acks. */
async function localWakeups(): Promise<number> {
  const text = (await http(broker, 'GET', '/metrics/prometheus')).body as string
  const line = text.split('\n').find((row) => row.startsWith('queen_pop_wakeups_total{source="local"}'))
  expect(line, 'no local wake-up series').toBeDefined()
  return Number(line!.split(' ').at(-1))
}

describe('wake-ups carry the tenant', () => {
  it("a push wakes the pops parked on its own tenant's queue, not on the other tenant's queue of that name", async () => {
    // Both queues exist before the pops park.
    await push(ACME, 'seed', 'seed')
    await push(GLOBEX, 'seed', 'seed')
    for (const headers of [ACME, GLOBEX]) {
      await http(broker, 'GET', '/api/v1/pop/queue/orders?batch=10&wait=false', undefined, headers)
    }

    const parkedBefore = broker.services.waiters.parked
    let globexAnswered = false
    const globexPop = http(broker, 'GET', '/api/v1/pop/queue/orders?wait=true&timeout=30000', undefined, GLOBEX).then(
      (answer) => {
        globexAnswered = true
        return answer
      },
    )
    const acmePop = http(broker, 'GET', '/api/v1/pop/queue/orders?wait=true&timeout=30000', undefined, ACME)
    while (broker.services.waiters.parked < parkedBefore + 2) await sleep(10)

    const wakesBefore = await localWakeups()
    await push(ACME, 'p1', { owner: 'acme' })
    const acme = await acmePop
    expect(acme.body.messages.map((message: { data: unknown }) => message.data)).toEqual([{ owner: 'acme' }])
    // acme's push must not have woken globex's pop: it is still parked (a wake would have answered it empty
    // or re-parked it; an empty answer would show here).
    await sleep(300)
    expect(globexAnswered).toBe(false)
    expect(broker.services.waiters.parked).toBe(parkedBefore + 1)
    // One wake found parked pops: acme's. A wake keyed by queue name alone would have found globex's too.
    expect((await localWakeups()) - wakesBefore).toBe(1)

    await push(GLOBEX, 'p1', { owner: 'globex' })
    const globex = await globexPop
    expect(globex.body.messages.map((message: { data: unknown }) => message.data)).toEqual([{ owner: 'globex' }])
  })
})

describe('Prometheus labels carry the tenant', () => {
  it("counts each tenant's orders in its own series, with a tenant label", async () => {
    await push(ACME, 'm', 1)
    await push(ACME, 'm', 2)
    await push(GLOBEX, 'm', 3)
    const scrape = await http(broker, 'GET', '/metrics/prometheus')
    expect(scrape.status).toBe(200)
    const text = scrape.body as string
    const pushed = (tenant: string) => {
      const line = text
        .split('\n')
        .find(
          (row) =>
            row.startsWith('queen_messages_pushed_total{') &&
            row.includes(`tenant="${tenant}"`) &&
            row.includes('queue="orders"') &&
            row.includes('outcome="queued"'),
        )
      expect(line, `no pushed series for ${tenant} in:\n${text.slice(0, 2000)}`).toBeDefined()
      return Number(line!.split(' ').at(-1))
    }
    // seed + p1 + m m for acme = 4; seed + p1 + m for globex = 3.
    expect(pushed('acme')).toBe(4)
    expect(pushed('globex')).toBe(3)
  })
})
