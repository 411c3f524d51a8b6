/**
 * Push-maintenance while producing, driven through the real Queen JavaScript client's Admin API
 * (`queen.admin.setMaintenanceMode`, `getMaintenanceMode`): pushes are answered `buffered`, and every
 * message is delivered once maintenance is off, none lost, none twice.
 */
import { afterAll, beforeAll, expect, it } from 'vitest'
import { startTestBroker, type TestBroker } from '../support/broker.js'
import { closeQueen, describeWithClient, openQueen, runConsumer, sleep, storedMessages, waitFor } from './client.js'

describeWithClient('push-maintenance through the client', () => {
  let broker: TestBroker
  let queen: any
  beforeAll(async () => {
    broker = await startTestBroker({ label: 'compat_maint', durable: {} })
    queen = await openQueen(broker)
  })
  afterAll(async () => {
    await closeQueen(queen)
    await broker?.close()
  })

  it('spools pushes while push maintenance is on and delivers each exactly once after it is turned off', async () => {
    const queue = 'maint-produce'
    await queen.queue(queue).create()
    await queen.queue(queue).push([{ data: { n: 0 } }, { data: { n: 1 } }])

    const on = await queen.admin.setMaintenanceMode(true)
    expect(on).toMatchObject({ maintenanceMode: true })
    expect(await queen.admin.getMaintenanceMode()).toMatchObject({ maintenanceMode: true })

    const received: number[] = []
    const consumer = runConsumer(
      (signal) =>
        queen
          .queue(queue)
          .batch(5)
          .timeoutMillis(500)
          .consume(
            (messages: any[]) => {
              for (const message of messages) received.push(message.data.n)
            },
            { signal },
          ),
      () => received.length >= 22,
      30_000,
    )

    // While maintenance is on: single pushes, a batch and a partitioned push all succeed as buffered.
    const answers: any[] = []
    for (let n = 2; n < 12; n++) answers.push(...(await queen.queue(queue).push([{ data: { n } }])))
    answers.push(...(await queen.queue(queue).push(Array.from({ length: 5 }, (_, k) => ({ data: { n: 12 + k } })))))
    answers.push(
      ...(await queen
        .queue(queue)
        .partition('other')
        .push(Array.from({ length: 5 }, (_, k) => ({ data: { n: 17 + k } })))),
    )
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill('buffered'))
    expect(answers.every((a) => typeof a.transactionId === 'string' && a.transactionId.length > 0)).toBe(true)

    // Nothing new reached PostgreSQL; the consumer saw only the 2 messages from before.
    await sleep(700)
    expect(await storedMessages(broker.db, queue)).toHaveLength(2)
    expect([...received].sort((a, b) => a - b)).toEqual([0, 1])
    const status = await queen.admin.getMaintenanceMode()
    expect(status).toMatchObject({ maintenanceMode: true, bufferedMessages: 20 })

    const off = await queen.admin.setMaintenanceMode(false)
    expect(off).toMatchObject({ maintenanceMode: false })

    const { reached, error } = await consumer
    expect(error).toBeUndefined()
    expect(reached).toBe(true)
    // Give a duplicate delivery time to show up before judging.
    await sleep(500)
    expect([...received].sort((a, b) => a - b)).toEqual(Array.from({ length: 22 }, (_, n) => n))
    // Order within each partition is kept across the spool.
    const defaults = received.filter((n) => n < 17)
    expect(defaults).toEqual([...defaults].sort((a, b) => a - b))
    const stored = await storedMessages(broker.db, queue)
    expect(stored).toHaveLength(22)
    expect(new Set(stored.map((row) => row.transaction_id))).toEqual(
      new Set([
        ...stored.filter((row) => (row.payload as any).n < 2).map((row) => row.transaction_id),
        ...answers.map((a) => a.transactionId),
      ]),
    )
    expect(await waitFor(async () => (await queen.admin.getMaintenanceMode()).bufferedMessages === 0, 5000)).toBe(true)
  })

  it('pop maintenance pauses delivery and resumes it when turned off', async () => {
    const queue = 'maint-pop'
    await queen.queue(queue).push([{ data: 'held' }])
    expect(await queen.admin.setPopMaintenanceMode(true)).toMatchObject({ popMaintenanceMode: true })
    try {
      expect(await queen.admin.getPopMaintenanceMode()).toMatchObject({ popMaintenanceMode: true })
      expect(await queen.queue(queue).wait(false).pop()).toEqual([])
    } finally {
      expect(await queen.admin.setPopMaintenanceMode(false)).toMatchObject({ popMaintenanceMode: false })
    }
    const popped = await queen.queue(queue).wait(false).pop()
    expect(popped.map((m: any) => m.data)).toEqual(['held'])
  })
})
