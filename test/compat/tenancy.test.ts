/**
 * Tenancy with the real client (docs/operations.md, "Tenancy"): the client sends the tenancy header through its
 * `headers` option, as a gateway would add it. Two clients, acme and globex, use a queue `orders` each:
 * they create, push, consume, ack and read the DLQ without ever seeing the other's messages, and a client
 * without the header is refused with the header named.
 */
import { afterAll, beforeAll, expect, it } from 'vitest'
import { startTestBroker, type TestBroker } from '../support/broker.js'
import { closeQueen, describeWithClient, openQueen, runConsumer } from './client.js'

const POLL_MS = 500

describeWithClient('tenancy through the client', () => {
  let broker: TestBroker
  const clients: Record<string, any> = {}
  beforeAll(async () => {
    broker = await startTestBroker({ label: 'compat_tenancy', config: { tenancy: { header: 'X-Queen-Tenant' } } })
    for (const tenant of ['acme', 'globex']) {
      clients[tenant] = await openQueen(broker, { headers: { 'X-Queen-Tenant': tenant } })
    }
  })
  afterAll(async () => {
    for (const queen of Object.values(clients)) await closeQueen(queen)
    await broker?.close()
  })

  it('each tenant pushes into and consumes from its own orders, and sees only its own messages', async () => {
    for (const [tenant, queen] of Object.entries(clients)) {
      await queen.queue('orders').config({ retryLimit: 0, dlqAfterMaxRetries: true }).create()
      const pushed = await queen
        .queue('orders')
        .partition('p1')
        .push([1, 2, 3].map((n) => ({ data: { tenant, n } })))
      expect(pushed.map((result: any) => result.status)).toEqual(['queued', 'queued', 'queued'])
    }
    for (const [tenant, queen] of Object.entries(clients)) {
      const seen: unknown[] = []
      const { reached, error } = await runConsumer(
        (signal) =>
          queen
            .queue('orders')
            .timeoutMillis(POLL_MS)
            .consume(
              (messages: any[]) => {
                for (const message of messages) seen.push(message.data)
              },
              { signal },
            ),
        () => seen.length >= 3,
      )
      expect(error).toBeUndefined()
      expect(reached).toBe(true)
      expect(seen).toEqual([1, 2, 3].map((n) => ({ tenant, n })))
      expect(await queen.queue('orders').wait(false).pop()).toEqual([])
    }
  })

  it("a failed message lands in its own tenant's DLQ only", async () => {
    const acme = clients.acme
    await acme
      .queue('orders')
      .partition('p2')
      .push([{ data: { tenant: 'acme', poison: true } }])
    const [message] = await acme.queue('orders').wait(false).pop()
    expect(message.data).toEqual({ tenant: 'acme', poison: true })
    expect((await acme.ack(message, false, { error: 'poison' })).success).toBe(true)
    const acmeDlq = await acme.queue('orders').dlq().limit(10).get()
    expect(acmeDlq.messages.map((entry: any) => entry.data)).toEqual([{ tenant: 'acme', poison: true }])
    const globexDlq = await clients.globex.queue('orders').dlq().limit(10).get()
    expect(globexDlq.messages).toEqual([])
  })

  it('a client without the header is refused, naming the header', async () => {
    const response = await fetch(`${broker.url}/api/v1/pop/queue/orders?wait=false`)
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({ error: 'X-Queen-Tenant header is required' })
  })
})
