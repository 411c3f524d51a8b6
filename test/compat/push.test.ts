/**
 * Push through the real Queen JavaScript client: what `queue().push()` and its buffering answer, and what
 * the broker stored for it.
 */
import { afterAll, beforeAll, expect, it } from 'vitest'
import { startTestBroker, type TestBroker } from '../support/broker.js'
import { closeQueen, describeWithClient, openQueen, sleep, storedMessages, waitFor } from './client.js'

describeWithClient('push through the client', () => {
  let broker: TestBroker
  let queen: any
  beforeAll(async () => {
    broker = await startTestBroker({ label: 'compat_push' })
    queen = await openQueen(broker)
  })
  afterAll(async () => {
    await closeQueen(queen)
    await broker?.close()
  })

  it('pushes a single message: queued, and the answered message id is the stored row', async () => {
    const results = await queen.queue('push-single').push([{ data: { hello: 'world' } }])
    expect(results).toHaveLength(1)
    expect(results[0]).toMatchObject({ status: 'queued', index: 0, queueName: 'push-single' })
    const stored = await storedMessages(broker.db, 'push-single')
    expect(stored).toHaveLength(1)
    expect(stored[0]).toMatchObject({
      id: results[0].message_id,
      transaction_id: results[0].transaction_id,
      payload: { hello: 'world' },
      partition: 'Default',
    })
    const popped = await queen.queue('push-single').wait(false).pop()
    expect(popped.map((m: any) => [m.id, m.data])).toEqual([[results[0].message_id, { hello: 'world' }]])
  })

  it('pushes a batch: one queued answer per item in order, stored in that order', async () => {
    const items = Array.from({ length: 5 }, (_, n) => ({ data: { n } }))
    const results = await queen.queue('push-batch').partition('p1').push(items)
    expect(results.map((r: any) => r.status)).toEqual(Array(5).fill('queued'))
    expect(results.map((r: any) => r.index)).toEqual([0, 1, 2, 3, 4])
    const stored = await storedMessages(broker.db, 'push-batch', 'p1')
    expect(stored.map((row) => row.payload)).toEqual(items.map((item) => item.data))
    expect(stored.map((row) => row.id)).toEqual(results.map((r: any) => r.message_id))
    const popped = await queen.queue('push-batch').partition('p1').batch(10).wait(false).pop()
    expect(popped.map((m: any) => m.data.n)).toEqual([0, 1, 2, 3, 4])
  })

  it('calls onSuccess with the queued items', async () => {
    let succeeded: any[] = []
    await queen
      .queue('push-callbacks')
      .push([{ data: 1 }, { data: 2 }])
      .onSuccess((items: any[]) => {
        succeeded = items
      })
    expect(succeeded.map((item) => item.payload)).toEqual([1, 2])
    expect(succeeded.every((item) => item.result.status === 'queued')).toBe(true)
  })

  it('buffers pushes client-side until flushAllBuffers(), then stores them all', async () => {
    for (let n = 0; n < 5; n++) {
      const answer = await queen
        .queue('push-buffered')
        .buffer({ messageCount: 100, timeMillis: 60_000 })
        .push([{ data: { n } }])
      expect(answer).toEqual({ buffered: true, count: 1 })
    }
    expect(queen.getBufferStats()).toMatchObject({ activeBuffers: 1, totalBufferedMessages: 5 })
    expect(await storedMessages(broker.db, 'push-buffered')).toEqual([])
    await queen.flushAllBuffers()
    expect(queen.getBufferStats()).toMatchObject({ activeBuffers: 0, totalBufferedMessages: 0 })
    const stored = await storedMessages(broker.db, 'push-buffered')
    expect(stored.map((row) => row.payload)).toEqual([0, 1, 2, 3, 4].map((n) => ({ n })))
  })

  it('flushes one queue buffer with queue().flushBuffer()', async () => {
    await queen
      .queue('push-flush-one')
      .partition('p')
      .buffer({ messageCount: 100, timeMillis: 60_000 })
      .push([{ data: 'a' }, { data: 'b' }])
    expect(await storedMessages(broker.db, 'push-flush-one')).toEqual([])
    await queen.queue('push-flush-one').partition('p').flushBuffer()
    expect((await storedMessages(broker.db, 'push-flush-one', 'p')).map((row) => row.payload)).toEqual(['a', 'b'])
  })

  it('flushes a buffer by itself when messageCount is reached', async () => {
    for (let n = 0; n < 3; n++) {
      await queen
        .queue('push-buffer-count')
        .buffer({ messageCount: 3, timeMillis: 60_000 })
        .push([{ data: { n } }])
    }
    expect(await waitFor(async () => (await storedMessages(broker.db, 'push-buffer-count')).length === 3, 5000)).toBe(
      true,
    )
    expect((await storedMessages(broker.db, 'push-buffer-count')).map((row) => row.payload)).toEqual([
      { n: 0 },
      { n: 1 },
      { n: 2 },
    ])
  })

  it('flushes a buffer by itself when timeMillis passes', async () => {
    await queen
      .queue('push-buffer-time')
      .buffer({ messageCount: 100, timeMillis: 200 })
      .push([{ data: 'timed' }])
    expect(await storedMessages(broker.db, 'push-buffer-time')).toEqual([])
    expect(await waitFor(async () => (await storedMessages(broker.db, 'push-buffer-time')).length === 1, 5000)).toBe(
      true,
    )
  })

  it('answers a repeated transactionId with duplicate naming the stored message id', async () => {
    const first = await queen.queue('push-dup').push([{ transactionId: 'dup-1', data: { v: 'original' } }])
    expect(first[0].status).toBe('queued')
    let duplicates: any[] = []
    const second = await queen
      .queue('push-dup')
      .push([{ transactionId: 'dup-1', data: { v: 'copy' } }])
      .onDuplicate((items: any[]) => {
        duplicates = items
      })
    expect(second[0]).toMatchObject({ status: 'duplicate', transaction_id: 'dup-1', message_id: first[0].message_id })
    expect(duplicates).toHaveLength(1)
    const stored = await storedMessages(broker.db, 'push-dup')
    expect(stored).toHaveLength(1)
    expect(stored[0]).toMatchObject({ id: first[0].message_id, transaction_id: 'dup-1', payload: { v: 'original' } })
  })

  it('answers a duplicate inside one batch with the id of the first occurrence, stored once', async () => {
    const results = await queen.queue('push-dup-batch').push([
      { transactionId: 'same', data: 1 },
      { transactionId: 'same', data: 2 },
    ])
    expect(results.map((r: any) => r.status)).toEqual(['queued', 'duplicate'])
    const stored = await storedMessages(broker.db, 'push-dup-batch')
    expect(stored.map((row) => [row.id, row.payload])).toEqual([[results[0].message_id, 1]])
    expect(results[1].message_id).toBe(stored[0]!.id)
  })

  it("answers the 2nd item of a batch carrying an earlier message's transactionId with that message's id", async () => {
    const earlier = await queen.queue('push-dup-earlier').push([{ transactionId: 'early', data: 'first' }])
    expect(earlier[0].status).toBe('queued')
    const results = await queen.queue('push-dup-earlier').push([
      { transactionId: 'fresh', data: 'new' },
      { transactionId: 'early', data: 'again' },
    ])
    expect(results.map((r: any) => r.status)).toEqual(['queued', 'duplicate'])
    expect(results[1].message_id).toBe(earlier[0].message_id)
    const stored = await storedMessages(broker.db, 'push-dup-earlier')
    expect(stored.map((row) => [row.transaction_id, row.payload])).toEqual([
      ['early', 'first'],
      ['fresh', 'new'],
    ])
    expect(stored.map((row) => row.id)).toEqual([earlier[0].message_id, results[0].message_id])
    // Every id the client was given exists.
    for (const id of [...earlier, ...results].map((r: any) => r.message_id)) {
      expect(stored.some((row) => row.id === id)).toBe(true)
    }
  })

  it("answers every item of a batch repeating an earlier message's transactionId with that message's id", async () => {
    const [first] = await queen
      .queue('push-dup-again')
      .partition('p')
      .push([{ transactionId: 'e', data: 1 }])
    expect(first.status).toBe('queued')
    const results = await queen
      .queue('push-dup-again')
      .partition('p')
      .push([
        { transactionId: 'e', data: 2 },
        { transactionId: 'e', data: 3 },
      ])
    expect(results.map((r: any) => [r.status, r.message_id])).toEqual([
      ['duplicate', first.message_id],
      ['duplicate', first.message_id],
    ])
    expect((await storedMessages(broker.db, 'push-dup-again')).map((row) => row.id)).toEqual([first.message_id])
  })

  it("answers a batch of duplicates of two earlier messages with each one's own id", async () => {
    const earlier = await queen.queue('push-dup-two').push([
      { transactionId: 'a', data: 'A' },
      { transactionId: 'b', data: 'B' },
    ])
    const results = await queen.queue('push-dup-two').push([
      { transactionId: 'a', data: 'A2' },
      { transactionId: 'b', data: 'B2' },
      { transactionId: 'c', data: 'C' },
    ])
    expect(results.map((r: any) => r.status)).toEqual(['duplicate', 'duplicate', 'queued'])
    expect(results.slice(0, 2).map((r: any) => r.message_id)).toEqual(earlier.map((r: any) => r.message_id))
    const stored = await storedMessages(broker.db, 'push-dup-two')
    expect(stored.map((row) => [row.transaction_id, row.payload])).toEqual([
      ['a', 'A'],
      ['b', 'B'],
      ['c', 'C'],
    ])
    expect(stored.map((row) => row.id)).toEqual([...earlier, results[2]].map((r: any) => r.message_id))
  })

  async function concurrentDuplicates(queue: string, partitionFor: (round: number) => string): Promise<void> {
    for (let round = 0; round < 20; round++) {
      const partition = partitionFor(round)
      const transactionId = `conc-${round}`
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, k) =>
          queen
            .queue(queue)
            .partition(partition)
            .push([{ transactionId, data: { round, k } }]),
        ),
      )
      const results = answers.map((answer: any[]) => answer[0])
      const stored = (await storedMessages(broker.db, queue, partition)).filter(
        (row) => row.transaction_id === transactionId,
      )
      expect(stored, `round ${round}: stored rows`).toHaveLength(1)
      expect(
        results.filter((r: any) => r.status === 'queued'),
        `round ${round}: ${JSON.stringify(results)}`,
      ).toHaveLength(1)
      expect(results.filter((r: any) => r.status === 'duplicate')).toHaveLength(7)
      for (const result of results) {
        expect(result.message_id, `round ${round}: ${JSON.stringify(results)}`).toBe(stored[0]!.id)
      }
    }
  }

  it('resolves 8 concurrent pushes of one transactionId to an existing partition: one stored, every answer names it', async () => {
    await queen
      .queue('push-conc-existing')
      .partition('p')
      .push([{ data: 'seed' }])
    await concurrentDuplicates('push-conc-existing', () => 'p')
  })

  it('resolves 8 concurrent pushes of one transactionId to a partition that did not exist before', async () => {
    await concurrentDuplicates('push-conc-fresh', (round) => `fresh-${round}`)
  })

  it('pushes and pops a 1 MB payload unchanged', async () => {
    const big = { blob: 'x'.repeat(1024 * 1024), tail: 'end' }
    const results = await queen.queue('push-large').push([{ data: big }])
    expect(results[0].status).toBe('queued')
    const popped = await queen.queue('push-large').wait(false).pop()
    expect(popped).toHaveLength(1)
    expect(popped[0].data.blob.length).toBe(1024 * 1024)
    expect(popped[0].data).toEqual(big)
  })

  it('keeps null, {}, "" and [] payloads as sent', async () => {
    const payloads = [null, {}, '', [], 0, false]
    const results = await queen.queue('push-empty').push(payloads.map((data) => ({ data })))
    expect(results.map((r: any) => r.status)).toEqual(Array(payloads.length).fill('queued'))
    const stored = await storedMessages(broker.db, 'push-empty')
    expect(stored.map((row) => row.payload)).toEqual(payloads)
    const popped = await queen.queue('push-empty').batch(10).wait(false).pop()
    expect(popped.map((m: any) => m.data)).toEqual(payloads)
  })

  it('does not deliver a delayed message before delayedProcessing has passed', async () => {
    await queen.queue('push-delayed').config({ delayedProcessing: 2 }).create()
    const pushedAt = Date.now()
    const results = await queen.queue('push-delayed').push([{ data: 'later' }])
    expect(results[0].status).toBe('queued')
    expect(await queen.queue('push-delayed').wait(false).pop()).toEqual([])
    await sleep(800)
    expect(await queen.queue('push-delayed').wait(false).pop()).toEqual([])
    let popped: any[] = []
    expect(
      await waitFor(async () => {
        popped = await queen.queue('push-delayed').wait(false).pop()
        return popped.length > 0
      }, 5000),
    ).toBe(true)
    const deliveredAt = Date.now()
    expect(popped.map((m: any) => m.data)).toEqual(['later'])
    expect(deliveredAt - pushedAt).toBeGreaterThanOrEqual(1900)
    expect(deliveredAt).toBeGreaterThanOrEqual(Date.parse(popped[0].createdAt) + 2000 - 50)
  })

  it('holds a partition under windowBuffer until its newest message is that old, then delivers all at once', async () => {
    await queen.queue('push-window').config({ windowBuffer: 2 }).create()
    // Taken before each push is sent: the broker stamps the message later, so the window ends after this + 2 s
    // however slow the answer, the check pop and the sleep are on a loaded machine.
    let lastPushAt = 0
    for (let n = 0; n < 3; n++) {
      lastPushAt = Date.now()
      await queen.queue('push-window').push([{ data: { n } }])
      expect(await queen.queue('push-window').batch(10).wait(false).pop()).toEqual([])
      await sleep(300)
    }
    await sleep(700)
    // 1 s after the last push: still inside the window.
    expect(await queen.queue('push-window').batch(10).wait(false).pop()).toEqual([])
    let popped: any[] = []
    expect(
      await waitFor(async () => {
        popped = await queen.queue('push-window').batch(10).wait(false).pop()
        return popped.length > 0
      }, 5000),
    ).toBe(true)
    expect(Date.now() - lastPushAt).toBeGreaterThanOrEqual(1950)
    expect(popped.map((m: any) => m.data.n)).toEqual([0, 1, 2])
  })
})
