/**
 * Transactions through the real Queen JavaScript client: `queen.transaction().ack(...).queue(...).push(...)
 * .commit()` commits every operation or none.
 */
import { afterAll, beforeAll, expect, it } from 'vitest'
import { startTestBroker, type TestBroker } from '../support/broker.js'
import { closeQueen, describeWithClient, openQueen, sleep, storedMessages } from './client.js'

describeWithClient('transactions through the client', () => {
  let broker: TestBroker
  let queen: any
  beforeAll(async () => {
    broker = await startTestBroker({ label: 'compat_tx' })
    queen = await openQueen(broker)
  })
  afterAll(async () => {
    await closeQueen(queen)
    await broker?.close()
  })

  it('commits an ack and a push together', async () => {
    await queen.queue('tx-in').push([{ data: { step: 1 } }])
    await queen.queue('tx-out').create()
    const [message] = await queen.queue('tx-in').wait(false).pop()
    expect(message).toBeDefined()
    const result = await queen
      .transaction()
      .ack(message)
      .queue('tx-out')
      .push([{ data: { step: 2, from: message.id } }])
      .commit()
    expect(result.success).toBe(true)
    expect(typeof result.transactionId).toBe('string')
    const pushResult = result.results.find((r: any) => r.type === 'push')
    expect(pushResult).toMatchObject({ success: true })

    const out = await storedMessages(broker.db, 'tx-out')
    expect(out.map((row) => row.payload)).toEqual([{ step: 2, from: message.id }])
    expect(out[0]!.id).toBe(pushResult.messageId)
    // The input is settled: nothing comes back, even after its lease would have ended.
    expect(await queen.queue('tx-in').wait(false).pop()).toEqual([])
    const popped = await queen.queue('tx-out').wait(false).pop()
    expect(popped.map((m: any) => m.data)).toEqual([{ step: 2, from: message.id }])
  })

  it('commits a push to a named partition and acks of several messages', async () => {
    await queen.queue('tx-multi-in').push([{ data: 1 }, { data: 2 }])
    const messages = await queen.queue('tx-multi-in').batch(2).wait(false).pop()
    expect(messages).toHaveLength(2)
    const result = await queen
      .transaction()
      .ack(messages)
      .queue('tx-multi-out')
      .partition('p7')
      .push([{ data: 'a' }, { data: 'b' }])
      .commit()
    expect(result.success).toBe(true)
    expect((await storedMessages(broker.db, 'tx-multi-out', 'p7')).map((row) => row.payload)).toEqual(['a', 'b'])
    expect(await queen.queue('tx-multi-in').batch(10).wait(false).pop()).toEqual([])
  })

  it('a failing transaction changes nothing: the acked message stays unacked, the pushed one is not stored', async () => {
    await queen.queue('tx-rb-in').config({ leaseTime: 1 }).create()
    await queen.queue('tx-rb-out').create()
    await queen.queue('tx-rb-in').push([{ data: 'keep me' }])
    const [message] = await queen.queue('tx-rb-in').wait(false).pop()
    expect(message).toBeDefined()
    const commit = queen
      .transaction()
      .ack(message)
      .queue('tx-rb-out')
      .push([{ data: 'must not exist' }])
      // An ack of a message that does not exist fails the whole transaction.
      .ack({ transactionId: 'no-such-message', partitionId: message.partitionId })
      .commit()
    await expect(commit).rejects.toThrow()
    expect(await storedMessages(broker.db, 'tx-rb-out')).toEqual([])
    // Still unacked: once its 1 s lease ends it is delivered again.
    await sleep(1200)
    const again = await queen.queue('tx-rb-in').wait(true).timeoutMillis(3000).pop()
    expect(again.map((m: any) => [m.transactionId, m.data])).toEqual([[message.transactionId, 'keep me']])
  })

  it('a transaction whose required lease has expired changes nothing', async () => {
    await queen.queue('tx-lease-in').config({ leaseTime: 1 }).create()
    await queen.queue('tx-lease-out').create()
    await queen.queue('tx-lease-in').push([{ data: 'late' }])
    const [message] = await queen.queue('tx-lease-in').wait(false).pop()
    expect(message).toBeDefined()
    await sleep(1500)
    const commit = queen
      .transaction()
      .ack(message)
      .queue('tx-lease-out')
      .push([{ data: 'too late' }])
      .commit()
    await expect(commit).rejects.toThrow()
    expect(await storedMessages(broker.db, 'tx-lease-out')).toEqual([])
    const again = await queen.queue('tx-lease-in').wait(true).timeoutMillis(3000).pop()
    expect(again.map((m: any) => m.transactionId)).toEqual([message.transactionId])
  })
})
