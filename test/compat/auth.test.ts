/**
 * The real Queen JavaScript client against a broker with JWT_ENABLED=true (docs/operations.md, "Authentication"): with
 * its `bearerToken` option it pushes, pops, acks, consumes and commits transactions, and every stored message carries
 * the token's sub; without a token it gets the broker's 401 as its error.
 */
import { afterAll, beforeAll, expect, it } from 'vitest'
import { startTestBroker, type TestBroker } from '../support/broker.js'
import { hsToken, SECRET } from '../broker/auth/tokens.js'
import {
  closeQueen,
  describeWithClient,
  loadClient,
  openQueen,
  runConsumer,
  storedMessages,
  waitFor,
} from './client.js'

describeWithClient('the client with a bearer token', () => {
  let broker: TestBroker
  let queen: any
  let anonymous: any
  let reader: any
  beforeAll(async () => {
    broker = await startTestBroker({ label: 'compat_auth', config: { auth: { enabled: true, secret: SECRET } } })
    queen = await openQueen(broker, { bearerToken: await hsToken({ sub: 'orders-service', role: 'read-write' }) })
    reader = await openQueen(broker, { bearerToken: await hsToken({ sub: 'dashboard', role: 'read-only' }) })
    anonymous = await openQueen(broker)
  })
  afterAll(async () => {
    await closeQueen(queen)
    await closeQueen(reader)
    await closeQueen(anonymous)
    await broker?.close()
  })

  async function producers(queue: string): Promise<(string | null)[]> {
    const { rows } = await broker.db.query(
      `SELECT m.producer_sub FROM queen.messages m JOIN queen.partitions p ON p.id = m.partition_id
         JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = $1 ORDER BY m.position`,
      [queue],
    )
    return rows.map((row) => row.producer_sub)
  }

  it('pushes, pops and acks; the stored messages carry the token sub', async () => {
    const pushed = await queen.queue('auth-c-push').push([{ data: { n: 1 } }, { data: { n: 2 } }])
    expect(pushed.map((r: any) => r.status)).toEqual(['queued', 'queued'])
    expect(await producers('auth-c-push')).toEqual(['orders-service', 'orders-service'])
    const popped = await queen.queue('auth-c-push').batch(2).wait(false).pop()
    expect(popped.map((m: any) => m.data.n)).toEqual([1, 2])
    expect(popped.map((m: any) => m.producerSub)).toEqual(['orders-service', 'orders-service'])
    const acked = await queen.ack(popped, true)
    expect(acked.success).toBe(true)
    expect(await queen.queue('auth-c-push').wait(false).pop()).toEqual([])
  })

  it('runs a consume loop to completion', async () => {
    await queen.queue('auth-c-consume').push(Array.from({ length: 5 }, (_, n) => ({ data: { n } })))
    const seen: number[] = []
    const { reached, error } = await runConsumer(
      (signal) =>
        queen
          .queue('auth-c-consume')
          .batch(2)
          .timeoutMillis(500)
          .consume(
            (messages: any) => {
              for (const message of [messages].flat()) seen.push(message.data.n)
              return Promise.resolve()
            },
            { signal },
          ),
      () => seen.length >= 5,
    )
    expect(error).toBeUndefined()
    expect(reached).toBe(true)
    expect(seen.sort()).toEqual([0, 1, 2, 3, 4])
  })

  it('commits a transaction', async () => {
    await queen.queue('auth-c-tx-in').push([{ data: 'in' }])
    const [message] = await queen.queue('auth-c-tx-in').wait(false).pop()
    const result = await queen
      .transaction()
      .ack(message)
      .queue('auth-c-tx-out')
      .push([{ data: 'out' }])
      .commit()
    expect(result.success).toBe(true)
    expect((await storedMessages(broker.db, 'auth-c-tx-out')).map((row) => row.payload)).toEqual(['out'])
    expect(await producers('auth-c-tx-out')).toEqual(['orders-service'])
  })

  it('runs a streams query with the token: source pops, cycles and sink pushes all authenticated', async () => {
    const { Stream } = await loadClient()
    await queen
      .queue('auth-c-src')
      .partition('p1')
      .push([1, 2, 3].map((n) => ({ data: { n } })))
    const errors: string[] = []
    const quiet = () => undefined
    const handle = await Stream.from(queen.queue('auth-c-src'))
      .map((message: any) => ({ doubled: message.data.n * 2 }))
      .to(queen.queue('auth-c-sink'))
      .run({
        url: broker.url,
        bearerToken: await hsToken({ sub: 'stream-runner', role: 'read-write' }),
        queryId: 'auth-c-stream',
        maxWaitMillis: 300,
        logger: { info: quiet, warn: quiet, error: quiet },
        onError: (error: any) => errors.push(String(error?.message ?? error)),
      })
    try {
      expect(await waitFor(async () => (await producers('auth-c-sink')).length >= 3, 15_000)).toBe(true)
    } finally {
      await handle.stop()
    }
    expect(errors).toEqual([])
    const sink = await storedMessages(broker.db, 'auth-c-sink')
    expect(sink.map((row) => row.payload)).toEqual([{ doubled: 2 }, { doubled: 4 }, { doubled: 6 }])
    expect(await producers('auth-c-sink')).toEqual(['stream-runner', 'stream-runner', 'stream-runner'])
  })

  it('a read-only token cannot push: the client surfaces 403', async () => {
    await expect(reader.queue('auth-c-ro').push([{ data: 1 }])).rejects.toThrow('Insufficient permissions')
    expect(await storedMessages(broker.db, 'auth-c-ro')).toEqual([])
  })

  it('without a token the client gets the broker’s 401', async () => {
    await expect(anonymous.queue('auth-c-anon').push([{ data: 1 }])).rejects.toThrow('Authentication required')
    expect(await storedMessages(broker.db, 'auth-c-anon')).toEqual([])
    // The client's pop reports a failed request as no messages; its consume loop stops on the 401.
    await queen.queue('auth-c-anon').push([{ data: 'for someone else' }])
    expect(await anonymous.queue('auth-c-anon').wait(false).pop()).toEqual([])
    let handled = 0
    const { error } = await runConsumer(
      (signal) =>
        anonymous
          .queue('auth-c-anon')
          .timeoutMillis(500)
          .consume(
            () => {
              handled += 1
              return Promise.resolve()
            },
            { signal },
          ),
      () => false,
      5_000,
    )
    expect(handled).toBe(0)
    expect(String(error)).toContain('Authentication required')
    // Still there for a consumer with a token.
    expect((await queen.queue('auth-c-anon').wait(false).pop()).map((m: any) => m.data)).toEqual(['for someone else'])
  })
})
