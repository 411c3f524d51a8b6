import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { http, startTestBroker, type TestBroker } from '../../support/broker.js'

let broker: TestBroker
beforeAll(async () => {
  broker = await startTestBroker({ label: 'ignorebody' })
})
afterAll(async () => {
  await broker.close()
})

describe('routes that read no body (docs/http-api.md, "Request bodies")', () => {
  it('ignore an unparsable JSON body instead of answering 400', async () => {
    const response = await http(broker, 'DELETE', '/api/v1/consumer-groups/nobody', '{not json', {
      'content-type': 'application/json',
    })
    expect(response.status).toBe(200)
    expect(response.body).toMatchObject({ success: true, consumerGroup: 'nobody' })
  })
})
