/**
 * Pop and consume through the real Queen JavaScript client: queue mode, consumer groups, subscription
 * modes, partitions, batches, retries, the DLQ, manual acks, lease renewal and traces.
 */
import { afterAll, beforeAll, expect, it } from 'vitest'
import { startTestBroker, WAKE_ONLY_POP_WAIT, type TestBroker } from '../support/broker.js'
import { startFaultProxy } from '../support/fault-proxy.js'
import { closeQueen, describeWithClient, openQueen, runConsumer, sleep, storedMessages } from './client.js'

/** Short long-polls so an aborted consumer stops within about a second. */
const POLL_MS = 500

describeWithClient('pop and consume through the client', () => {
  let broker: TestBroker
  let queen: any
  beforeAll(async () => {
    broker = await startTestBroker({ label: 'compat_consume' })
    queen = await openQueen(broker)
  })
  afterAll(async () => {
    await closeQueen(queen)
    await broker?.close()
  })

  async function subscribed(queue: string, group: string): Promise<boolean> {
    const result = await broker.db.query(
      `SELECT 1 FROM queen.subscriptions s JOIN queen.queues q ON q.id = s.queue_id
        WHERE q.name = $1 AND s.consumer_group = $2`,
      [queue, group],
    )
    return result.rows.length > 0
  }

  async function pushNumbers(queue: string, count: number, partition = 'Default', start = 0): Promise<any[]> {
    const results = await queen
      .queue(queue)
      .partition(partition)
      .push(Array.from({ length: count }, (_, k) => ({ data: { n: start + k } })))
    expect(results.map((r: any) => r.status)).toEqual(Array(count).fill('queued'))
    return results
  }

  it('pops in queue mode with the message fields the client acks with', async () => {
    const pushed = await pushNumbers('cons-pop', 2)
    const first = await queen.queue('cons-pop').wait(false).pop()
    expect(first).toHaveLength(1)
    const message = first[0]
    expect(message).toMatchObject({
      id: pushed[0].message_id,
      transactionId: pushed[0].transaction_id,
      data: { n: 0 },
      partition: 'Default',
      consumerGroup: '__QUEUE_MODE__',
    })
    expect(message.partitionId).toMatch(/^[0-9a-f-]{36}$/)
    expect(message.leaseId).toMatch(/^[0-9a-f-]{36}$/)
    const acked = await queen.ack(message, true)
    expect(acked.success).toBe(true)
    const second = await queen.queue('cons-pop').batch(10).wait(false).pop()
    expect(second.map((m: any) => m.data)).toEqual([{ n: 1 }])
    expect((await queen.ack(second, true)).success).toBe(true)
    expect(await queen.queue('cons-pop').wait(false).pop()).toEqual([])
  })

  it('pop with wait(true) returns a message pushed while it waits', async () => {
    const waiting = queen.queue('cons-wait').wait(true).timeoutMillis(5000).pop()
    await sleep(200)
    await pushNumbers('cons-wait', 1)
    const started = Date.now()
    const messages = await waiting
    expect(messages.map((m: any) => m.data)).toEqual([{ n: 0 }])
    expect(Date.now() - started).toBeLessThan(3000)
  })

  it('a long-poll pop whose client went away leaves the line: the next message goes to a live long-poll', async () => {
    // Re-checks only every 60 s: only a wake-up answers a parked pop within this test.
    const slow = await startTestBroker({ label: 'compat_gone', config: { popWait: WAKE_ONLY_POP_WAIT } })
    const proxy = await startFaultProxy({ host: '127.0.0.1', port: Number(new URL(slow.url).port) })
    const direct = await openQueen(slow)
    const gone = await openQueen({ url: `http://127.0.0.1:${proxy.port}` }, { retryAttempts: 1 })
    try {
      await direct.queue('cons-gone').create()
      const parked = gone.queue('cons-gone').wait(true).timeoutMillis(30_000).pop()
      await sleep(200)
      const live = direct.queue('cons-gone').wait(true).timeoutMillis(6000).pop()
      await sleep(200)
      // The network between the first client and the broker fails: its connection is cut.
      proxy.setMode('refuse')
      expect(await parked).toEqual([])
      await sleep(200)
      const [pushed] = await direct.queue('cons-gone').push([{ data: { n: 1 } }])
      const pushedAt = Date.now()
      const popped = await live
      expect(popped.map((m: any) => m.id)).toEqual([pushed.message_id])
      expect(Date.now() - pushedAt).toBeLessThan(5000)
    } finally {
      await closeQueen(gone)
      await closeQueen(direct)
      await proxy.close()
      await slow.close()
    }
  })

  it('pop with wait(true) on an empty queue answers [] at its timeout', async () => {
    await queen.queue('cons-wait-empty').create()
    const started = Date.now()
    expect(await queen.queue('cons-wait-empty').wait(true).timeoutMillis(700).pop()).toEqual([])
    const elapsed = Date.now() - started
    expect(elapsed).toBeGreaterThanOrEqual(600)
    expect(elapsed).toBeLessThan(3000)
  })

  it('consumes in queue mode: every message once, acked automatically', async () => {
    await pushNumbers('cons-queue', 5)
    const seen: number[] = []
    const { reached, error } = await runConsumer(
      (signal) =>
        queen
          .queue('cons-queue')
          .timeoutMillis(POLL_MS)
          .consume(
            (messages: any[]) => {
              for (const message of messages) seen.push(message.data.n)
            },
            { signal },
          ),
      () => seen.length >= 5,
    )
    expect(error).toBeUndefined()
    expect(reached).toBe(true)
    expect(seen).toEqual([0, 1, 2, 3, 4])
    expect(await queen.queue('cons-queue').wait(false).pop()).toEqual([])
  })

  it('consume with limit() stops by itself after that many messages', async () => {
    await pushNumbers('cons-limit', 5)
    const seen: number[] = []
    await queen
      .queue('cons-limit')
      .limit(3)
      .timeoutMillis(POLL_MS)
      .consume((messages: any[]) => {
        for (const message of messages) seen.push(message.data.n)
      })
    expect(seen).toEqual([0, 1, 2])
    expect((await queen.queue('cons-limit').batch(10).wait(false).pop()).map((m: any) => m.data.n)).toEqual([3, 4])
  })

  it('gives every message to each of two consumer groups', async () => {
    await pushNumbers('cons-groups', 4)
    const byGroup: Record<string, number[]> = { alpha: [], beta: [] }
    for (const group of ['alpha', 'beta']) {
      const { reached, error } = await runConsumer(
        (signal) =>
          queen
            .queue('cons-groups')
            .group(group)
            .batch(2)
            .timeoutMillis(POLL_MS)
            .consume(
              (messages: any[]) => {
                for (const m of messages) {
                  expect(m.consumerGroup).toBe(group)
                  byGroup[group]!.push(m.data.n)
                }
              },
              { signal },
            ),
        () => byGroup[group]!.length >= 4,
      )
      expect(error).toBeUndefined()
      expect(reached).toBe(true)
    }
    expect(byGroup).toEqual({ alpha: [0, 1, 2, 3], beta: [0, 1, 2, 3] })
    // Both groups settled everything; queue mode still has it all.
    expect(await queen.queue('cons-groups').group('alpha').batch(10).wait(false).pop()).toEqual([])
    expect(await queen.queue('cons-groups').group('beta').batch(10).wait(false).pop()).toEqual([])
    expect(await queen.queue('cons-groups').batch(10).wait(false).pop()).toHaveLength(4)
  })

  for (const mode of ['all', 'from_beginning']) {
    it(`subscriptionMode('${mode}') delivers the backlog to a new group`, async () => {
      const queue = `cons-sub-${mode.replace('_', '-')}`
      await pushNumbers(queue, 3)
      const popped = await queen.queue(queue).group(`g-${mode}`).subscriptionMode(mode).batch(10).wait(false).pop()
      expect(popped.map((m: any) => m.data.n)).toEqual([0, 1, 2])
    })
  }

  for (const mode of ['new', 'new-only']) {
    it(`subscriptionMode('${mode}') skips the backlog and delivers messages pushed after first contact`, async () => {
      const queue = `cons-sub-${mode}`
      await pushNumbers(queue, 3)
      await sleep(50)
      const group = `g-${mode}`
      expect(await queen.queue(queue).group(group).subscriptionMode(mode).batch(10).wait(false).pop()).toEqual([])
      await pushNumbers(queue, 2, 'Default', 3)
      const popped = await queen.queue(queue).group(group).subscriptionMode(mode).batch(10).wait(false).pop()
      expect(popped.map((m: any) => m.data.n)).toEqual([3, 4])
      // Queue mode is not affected by subscriptions.
      expect(await queen.queue(queue).batch(10).wait(false).pop()).toHaveLength(5)
    })
  }

  it("subscriptionFrom('now') skips the backlog", async () => {
    await pushNumbers('cons-sub-now', 2)
    await sleep(50)
    expect(
      await queen.queue('cons-sub-now').group('g-now').subscriptionFrom('now').batch(10).wait(false).pop(),
    ).toEqual([])
    await pushNumbers('cons-sub-now', 1, 'Default', 2)
    const popped = await queen.queue('cons-sub-now').group('g-now').subscriptionFrom('now').batch(10).wait(false).pop()
    expect(popped.map((m: any) => m.data.n)).toEqual([2])
  })

  it('subscriptionFrom(<timestamp>) starts at that time', async () => {
    await pushNumbers('cons-sub-ts', 2)
    await sleep(250)
    const from = new Date().toISOString()
    await sleep(250)
    await pushNumbers('cons-sub-ts', 2, 'Default', 2)
    const popped = await queen.queue('cons-sub-ts').group('g-ts').subscriptionFrom(from).batch(10).wait(false).pop()
    expect(popped.map((m: any) => m.data.n)).toEqual([2, 3])
  })

  it('consumes with a subscription mode on a consumer group', async () => {
    await pushNumbers('cons-sub-consume', 2)
    await sleep(50)
    const seen: number[] = []
    let pushedNew = false
    const { reached, error } = await runConsumer(
      (signal) =>
        queen
          .queue('cons-sub-consume')
          .group('g-new-consume')
          .subscriptionMode('new')
          .timeoutMillis(POLL_MS)
          .consume(
            (messages: any[]) => {
              for (const message of messages) seen.push(message.data.n)
            },
            { signal },
          ),
      async () => {
        // Push the new message once the group's first pop has recorded its subscription.
        if (!pushedNew && (await subscribed('cons-sub-consume', 'g-new-consume'))) {
          pushedNew = true
          await pushNumbers('cons-sub-consume', 1, 'Default', 100)
        }
        return seen.length >= 1
      },
    )
    expect(error).toBeUndefined()
    expect(reached).toBe(true)
    expect(seen).toEqual([100])
  })

  it('pops and consumes a specific partition only', async () => {
    await pushNumbers('cons-parts', 3, 'p1')
    await pushNumbers('cons-parts', 3, 'p2', 10)
    const fromP1 = await queen.queue('cons-parts').partition('p1').batch(10).wait(false).pop()
    expect(fromP1.map((m: any) => [m.partition, m.data.n])).toEqual([
      ['p1', 0],
      ['p1', 1],
      ['p1', 2],
    ])
    const seen: any[] = []
    const { reached, error } = await runConsumer(
      (signal) =>
        queen
          .queue('cons-parts')
          .partition('p2')
          .batch(10)
          .timeoutMillis(POLL_MS)
          .consume(
            (messages: any[]) => {
              seen.push(...messages.map((m) => [m.partition, m.data.n]))
            },
            { signal },
          ),
      () => seen.length >= 3,
    )
    expect(error).toBeUndefined()
    expect(reached).toBe(true)
    expect(seen).toEqual([
      ['p2', 10],
      ['p2', 11],
      ['p2', 12],
    ])
  })

  it('each() hands the handler one message at a time and acks each', async () => {
    await pushNumbers('cons-each', 4)
    const calls: any[] = []
    const { reached, error } = await runConsumer(
      (signal) =>
        queen
          .queue('cons-each')
          .batch(4)
          .each()
          .timeoutMillis(POLL_MS)
          .consume(
            (message: any) => {
              calls.push(message)
            },
            { signal },
          ),
      () => calls.length >= 4,
    )
    expect(error).toBeUndefined()
    expect(reached).toBe(true)
    expect(calls.every((m) => !Array.isArray(m))).toBe(true)
    expect(calls.map((m) => m.data.n)).toEqual([0, 1, 2, 3])
    expect(await queen.queue('cons-each').batch(10).wait(false).pop()).toEqual([])
  })

  it('batch(n) delivers at most n messages per call, in partition order', async () => {
    await pushNumbers('cons-batch', 10, 'ordered')
    const batches: number[][] = []
    const { reached, error } = await runConsumer(
      (signal) =>
        queen
          .queue('cons-batch')
          .batch(4)
          .timeoutMillis(POLL_MS)
          .consume(
            (messages: any[]) => {
              expect(Array.isArray(messages)).toBe(true)
              batches.push(messages.map((m) => m.data.n))
            },
            { signal },
          ),
      () => batches.flat().length >= 10,
    )
    expect(error).toBeUndefined()
    expect(reached).toBe(true)
    expect(batches.every((batch) => batch.length >= 1 && batch.length <= 4)).toBe(true)
    expect(batches[0]).toHaveLength(4)
    expect(batches.flat()).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
  })

  it('pop batch(n) with partitions(k) drains several partitions in one call', async () => {
    for (const p of ['a', 'b', 'c']) await pushNumbers('cons-multi', 2, p)
    const popped = await queen.queue('cons-multi').batch(10).partitions(3).wait(false).pop()
    expect(popped).toHaveLength(6)
    const byPartition: Record<string, number[]> = {}
    for (const m of popped) (byPartition[m.partition] ??= []).push(m.data.n)
    expect(byPartition).toEqual({ a: [0, 1], b: [0, 1], c: [0, 1] })
    expect(new Set(popped.map((m: any) => m.leaseId)).size).toBe(1)
    expect((await queen.ack(popped, true)).success).toBe(true)
  })

  it('redelivers a message whose handler throws until retryLimit, then stops', async () => {
    await queen.queue('cons-retry').config({ retryLimit: 2, retryDelay: 0, leaseTime: 5 }).create()
    await pushNumbers('cons-retry', 1)
    const deliveries: any[] = []
    let thirdAt: number | undefined
    const { reached, error } = await runConsumer(
      (signal) =>
        queen
          .queue('cons-retry')
          .timeoutMillis(POLL_MS)
          .consume(
            (messages: any[]) => {
              deliveries.push(...messages)
              if (deliveries.length === 3) thirdAt = Date.now()
              throw new Error(`boom ${deliveries.length}`)
            },
            { signal },
          ),
      // Keep consuming for 1 s after the 3rd delivery: a 4th would show up.
      () => thirdAt !== undefined && Date.now() - thirdAt >= 1000,
    )
    expect(error).toBeUndefined()
    expect(reached).toBe(true)
    // 1 + retryLimit deliveries, then the DLQ.
    expect(deliveries).toHaveLength(3)
    expect(new Set(deliveries.map((m) => m.transactionId)).size).toBe(1)
    expect(await queen.queue('cons-retry').wait(false).pop()).toEqual([])
  })

  it('moves a message to the DLQ after its retries are exhausted, as queue().dlq() shows', async () => {
    await queen
      .queue('cons-dlq')
      .config({ retryLimit: 1, retryDelay: 0, leaseTime: 5, dlqAfterMaxRetries: true })
      .create()
    const [pushed] = await pushNumbers('cons-dlq', 1)
    let attempts = 0
    let secondAt: number | undefined
    const { reached, error } = await runConsumer(
      (signal) =>
        queen
          .queue('cons-dlq')
          .timeoutMillis(POLL_MS)
          .consume(
            () => {
              attempts++
              if (attempts === 2) secondAt = Date.now()
              throw new Error('poison message')
            },
            { signal },
          ),
      // Keep consuming for 0.7 s after the 2nd attempt: a 3rd would show up.
      () => secondAt !== undefined && Date.now() - secondAt >= 700,
    )
    expect(error).toBeUndefined()
    expect(reached).toBe(true)
    expect(attempts).toBe(2)
    const dlq = await queen.queue('cons-dlq').dlq().limit(10).get()
    expect(dlq.total).toBe(1)
    expect(dlq.messages).toHaveLength(1)
    expect(dlq.messages[0]).toMatchObject({
      id: pushed.message_id,
      transactionId: pushed.transaction_id,
      data: { n: 0 },
      consumerGroup: '__QUEUE_MODE__',
    })
    // The client's auto-nack sends no error text (ConsumerManager.js:279 acks with an empty context).
    expect(typeof dlq.messages[0].errorMessage).toBe('string')
    expect(dlq.messages[0].errorMessage.length).toBeGreaterThan(0)
  })

  it('shows DLQ entries of a consumer group with dlq(group), and none for another group', async () => {
    await queen.queue('cons-dlq-group').config({ retryLimit: 0, retryDelay: 0 }).create()
    await pushNumbers('cons-dlq-group', 1)
    const [message] = await queen.queue('cons-dlq-group').group('g-fail').wait(false).pop()
    expect(message).toBeDefined()
    await queen.ack(message, false, { group: 'g-fail', error: 'bad input' })
    const dlq = await queen.queue('cons-dlq-group').dlq('g-fail').get()
    expect(dlq.messages.map((m: any) => [m.consumerGroup, m.errorMessage, m.data])).toEqual([
      ['g-fail', 'bad input', { n: 0 }],
    ])
    expect((await queen.queue('cons-dlq-group').dlq('g-other').get()).messages).toEqual([])
  })

  it('manual ack: autoAck(false) consume, ack() settles and ack(false) redelivers', async () => {
    await queen.queue('cons-manual').config({ retryDelay: 0 }).create()
    await pushNumbers('cons-manual', 2)
    const handled: number[] = []
    const results: any[] = []
    const { reached, error } = await runConsumer(
      (signal) =>
        queen
          .queue('cons-manual')
          .autoAck(false)
          .limit(2)
          .timeoutMillis(POLL_MS)
          .consume(
            async (messages: any[]) => {
              for (const message of messages) {
                handled.push(message.data.n)
                results.push(await queen.ack(message, message.data.n === 0))
              }
            },
            { signal },
          ),
      () => handled.length >= 2,
    )
    expect(error).toBeUndefined()
    expect(reached).toBe(true)
    expect(handled.slice(0, 2)).toEqual([0, 1])
    expect(results.map((r) => r.success)).toEqual([true, true])
    // n = 0 is settled; n = 1 was nacked and comes back.
    const again = await queen.queue('cons-manual').batch(10).wait(false).pop()
    expect(again.map((m: any) => m.data.n)).toEqual([1])
    expect((await queen.ack(again[0], true)).success).toBe(true)
    expect(await queen.queue('cons-manual').batch(10).wait(false).pop()).toEqual([])
  })

  it('manual ack with onSuccess/onError callbacks (auto-ack off)', async () => {
    await queen.queue('cons-callbacks').config({ retryDelay: 0 }).create()
    await pushNumbers('cons-callbacks', 2)
    const outcomes: string[] = []
    const { reached, error } = await runConsumer(
      (signal) =>
        queen
          .queue('cons-callbacks')
          .timeoutMillis(POLL_MS)
          .consume(
            (messages: any[]) => {
              if (messages.some((message) => message.data.n === 1)) throw new Error('no')
              return 'ok'
            },
            { signal },
          )
          .onSuccess(async (messages: any[], result: string) => {
            outcomes.push(...messages.map((message) => `${message.data.n}:${result}`))
            await queen.ack(messages, true)
          })
          .onError(async (messages: any[], failure: Error) => {
            outcomes.push(...messages.map((message) => `${message.data.n}:${failure.message}`))
            await queen.ack(messages, 'dlq', { error: failure.message })
          }),
      () => outcomes.length >= 2,
    )
    expect(error).toBeUndefined()
    expect(reached).toBe(true)
    expect(outcomes).toEqual(['0:ok', '1:no'])
    expect(await queen.queue('cons-callbacks').wait(false).pop()).toEqual([])
    const dlq = await queen.queue('cons-callbacks').dlq().get()
    expect(dlq.messages.map((m: any) => [m.data, m.errorMessage])).toEqual([[{ n: 1 }, 'no']])
  })

  it('a handler that runs longer than the lease with renewLease on is not redelivered', async () => {
    await queen.queue('cons-renew').config({ leaseTime: 1 }).create()
    await pushNumbers('cons-renew', 1)
    const other = await openQueen(broker)
    try {
      const deliveries: any[] = []
      const stolen: any[] = []
      let done = false
      const { reached, error } = await runConsumer(
        (signal) =>
          queen
            .queue('cons-renew')
            .renewLease(true, 300)
            .timeoutMillis(POLL_MS)
            .consume(
              async (messages: any[]) => {
                deliveries.push(...messages)
                // Longer than the 1 s lease; another consumer polls meanwhile.
                const until = Date.now() + 2500
                while (Date.now() < until) {
                  stolen.push(...(await other.queue('cons-renew').wait(false).pop()))
                  await sleep(200)
                }
                done = true
              },
              { signal },
            ),
        () => done,
      )
      expect(error).toBeUndefined()
      expect(reached).toBe(true)
      expect(deliveries).toHaveLength(1)
      expect(stolen).toEqual([])
      // The auto-ack after the long handler succeeded: nothing is left.
      await sleep(1200)
      expect(await other.queue('cons-renew').wait(false).pop()).toEqual([])
    } finally {
      await closeQueen(other)
    }
  })

  it('renew() extends a popped lease beyond leaseTime', async () => {
    await queen.queue('cons-renew-manual').config({ leaseTime: 1 }).create()
    await pushNumbers('cons-renew-manual', 1)
    const [message] = await queen.queue('cons-renew-manual').wait(false).pop()
    expect(message).toBeDefined()
    const renewed = await queen.renew(message)
    expect(renewed).toMatchObject({ leaseId: message.leaseId, success: true })
    await sleep(1500)
    expect(await queen.queue('cons-renew-manual').wait(false).pop()).toEqual([])
    expect((await queen.ack(message, true)).success).toBe(true)
  })

  it('a lease that expires without renewal is redelivered', async () => {
    await queen.queue('cons-expire').config({ leaseTime: 1 }).create()
    await pushNumbers('cons-expire', 1)
    const [first] = await queen.queue('cons-expire').wait(false).pop()
    expect(first).toBeDefined()
    await sleep(1300)
    const again = await queen.queue('cons-expire').wait(true).timeoutMillis(3000).pop()
    expect(again.map((m: any) => m.transactionId)).toEqual([first.transactionId])
    expect(again[0].leaseId).not.toBe(first.leaseId)
  })

  it('message.trace() writes traces that the trace API reads back', async () => {
    const [pushed] = await pushNumbers('cons-trace', 1)
    const traceResults: any[] = []
    let traced: any
    const { reached, error } = await runConsumer(
      (signal) =>
        queen
          .queue('cons-trace')
          .timeoutMillis(POLL_MS)
          .consume(
            async ([message]: any[]) => {
              traced = message
              traceResults.push(
                await message.trace({ traceName: 'order-42', eventType: 'info', data: { text: 'started' } }),
              )
              traceResults.push(
                await message.trace({
                  traceName: ['order-42', 'tenant-acme'],
                  eventType: 'processing',
                  data: { text: 'done', total: 7 },
                }),
              )
            },
            { signal },
          ),
      () => traceResults.length >= 2,
    )
    expect(error).toBeUndefined()
    expect(reached).toBe(true)
    expect(traceResults.map((r) => r.success)).toEqual([true, true])
    expect(traced.transactionId).toBe(pushed.transaction_id)

    const forMessage = await queen.admin.getTracesForMessage(traced.partitionId, traced.transactionId)
    expect(forMessage.traces.map((t: any) => [t.event_type, t.data, [...t.trace_names].sort()])).toEqual([
      ['info', { text: 'started' }, ['order-42']],
      ['processing', { text: 'done', total: 7 }, ['order-42', 'tenant-acme']],
    ])
    expect(forMessage.traces[0].consumer_group).toBe('__QUEUE_MODE__')

    const byName = await queen.admin.getTracesByName('order-42')
    expect(byName.traces).toHaveLength(2)
    expect(byName.traces.every((t: any) => t.transaction_id === traced.transactionId)).toBe(true)
    expect(byName.traces[0]).toMatchObject({ queue_name: 'cons-trace', message_payload: { n: 0 } })
    const tenant = await queen.admin.getTracesByName('tenant-acme')
    expect(tenant.traces.map((t: any) => t.event_type)).toEqual(['processing'])

    const names = await queen.admin.getTraceNames()
    const name = names.trace_names.find((n: any) => n.trace_name === 'order-42')
    expect(name).toMatchObject({ trace_count: 2, message_count: 1 })
  })

  it('consumes by namespace with queue().namespace(): messages of every queue of that namespace', async () => {
    await queen.queue('cons-ns-a').namespace('cons-ns').task('t1').create()
    await queen.queue('cons-ns-b').namespace('cons-ns').task('t2').create()
    await queen.queue('cons-ns-other').namespace('cons-ns-elsewhere').task('t1').create()
    await pushNumbers('cons-ns-a', 1)
    await pushNumbers('cons-ns-b', 1, 'Default', 10)
    await pushNumbers('cons-ns-other', 1, 'Default', 20)
    const seen: any[] = []
    const { reached, error } = await runConsumer(
      (signal) =>
        queen
          .queue()
          .namespace('cons-ns')
          .timeoutMillis(POLL_MS)
          .consume(
            (messages: any[]) => {
              seen.push(...messages)
            },
            { signal },
          ),
      () => seen.length >= 2,
    )
    expect(error).toBeUndefined()
    expect(reached).toBe(true)
    await sleep(300)
    expect(seen.map((m) => m.data.n).sort((a, b) => a - b)).toEqual([0, 10])
    // Acked through the messages' own partition ids.
    expect(await queen.queue('cons-ns-a').wait(false).pop()).toEqual([])
    expect(await queen.queue('cons-ns-b').wait(false).pop()).toEqual([])
  })

  it('pops by task with queue().task(), higher-priority queues first', async () => {
    await queen.queue('cons-task-low').task('cons-task').config({ priority: 1 }).create()
    await queen.queue('cons-task-high').task('cons-task').config({ priority: 9 }).create()
    await pushNumbers('cons-task-low', 1)
    await pushNumbers('cons-task-high', 1, 'Default', 1)
    const first = await queen.queue().task('cons-task').wait(false).pop()
    expect(first.map((m: any) => [m.queue, m.data.n])).toEqual([['cons-task-high', 1]])
    const second = await queen.queue().task('cons-task').wait(false).pop()
    expect(second.map((m: any) => [m.queue, m.data.n])).toEqual([['cons-task-low', 0]])
    expect((await queen.ack([...first, ...second], true)).success).toBe(true)
  })

  it('message ids the client received exist in queen.messages', async () => {
    const pushed = await pushNumbers('cons-ids', 3)
    const popped = await queen.queue('cons-ids').batch(10).wait(false).pop()
    const stored = await storedMessages(broker.db, 'cons-ids')
    expect(popped.map((m: any) => m.id)).toEqual(stored.map((row) => row.id))
    expect(popped.map((m: any) => m.id)).toEqual(pushed.map((r: any) => r.message_id))
  })
})
