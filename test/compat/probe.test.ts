import { afterAll, beforeAll, expect, it } from 'vitest'
import { startTestBroker, type TestBroker } from '../support/broker.js'
import { describeWithClient, loadClient } from './client.js'

describeWithClient('probe', () => {
  let broker: TestBroker
  let queen: any
  beforeAll(async () => {
    broker = await startTestBroker({ label: 'compat_probe' })
    const { Queen } = await loadClient()
    queen = new Queen({ url: broker.url })
  })
  afterAll(async () => {
    await queen?.close?.()
    await broker?.close()
  })
  it('pushes and pops', async () => {
    await queen.queue('probe-q').create()
    await queen.queue('probe-q').push([{ data: { a: 1 } }])
    const messages = await queen.queue('probe-q').pop()
    expect(messages.map((m: any) => m.data)).toEqual([{ a: 1 }])
  })
})
