/**
 * The table of named bad inputs (bad-input-cases.ts) against a real broker: each case gets its status
 * and an error naming the field, a refused case stores nothing (every table fingerprinted before and
 * after), nothing answers 5xx, and the broker is still healthy at the end.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { http, startTestBroker, type TestBroker } from '../../support/broker.js'
import { messagesOfQueue, rawRequest } from '../http/edge-helpers.js'
import { BAD_INPUTS, type Fixtures, type Send } from './bad-input-cases.js'
import { firstResponse, floodBody, storedState } from './hostile-support.js'
import { slowClient } from './slow-client.js'

let broker: TestBroker
let fixtures: Fixtures
const statuses: { name: string; status: number }[] = []

beforeAll(async () => {
  broker = await startTestBroker({ label: 'hostile_bad_inputs' })
  const base = await http(broker, 'POST', '/api/v1/push', {
    items: [{ queue: 'hx-base', payload: { n: 1 }, transactionId: 'hx-base-1' }],
  })
  expect(base.body[0].status).toBe('queued')
  const pop = await http(broker, 'GET', '/api/v1/pop/queue/hx-base?batch=1')
  const message = pop.body.messages[0]
  fixtures = { partitionId: message.partitionId, transactionId: message.transactionId, leaseId: message.leaseId }
  // A named group with a cursor (seeks and subscription rewrites would change it) and a waiting message.
  expect((await http(broker, 'GET', '/api/v1/pop/queue/hx-base?consumerGroup=g1')).body.messages).toHaveLength(1)
  expect((await http(broker, 'POST', '/api/v1/push', { items: [{ queue: 'hx-pop', payload: 'w' }] })).status).toBe(200)
})

afterAll(async () => {
  await broker.close()
})

/** Sends one case; the answer's status and JSON body (undefined when the answer is not JSON). */
async function send(request: Send): Promise<{ status: number; json: any }> {
  switch (request.via) {
    case 'json': {
      const answer = await http(broker, request.method, request.path, request.body)
      return { status: answer.status, json: typeof answer.body === 'object' ? answer.body : undefined }
    }
    case 'text': {
      const headers: Record<string, string> = {}
      if (request.contentType !== null) headers['content-type'] = request.contentType ?? 'application/json'
      const answer = await rawRequest(broker.url, {
        method: request.method,
        path: request.path,
        headers: { ...headers, 'content-length': String(Buffer.byteLength(request.text)) },
        body: request.text,
      })
      return { status: answer.status, json: answer.json }
    }
    case 'raw': {
      const answer = await rawRequest(broker.url, request)
      return { status: answer.status, json: answer.json }
    }
    case 'flood': {
      const answer = await floodBody(broker.url, request.path, request.bytes)
      // Refused from the header: far less than the announced body was ever sent.
      expect(answer.sentBytes).toBeLessThan(request.bytes)
      return firstResponse(answer.text)
    }
    case 'socket': {
      const exchange = await slowClient(broker.url, request.slices, {
        intervalMs: request.dripMs ?? 1,
        giveUpMs: 20_000,
      })
      // Every socket case is one the broker must end itself.
      expect(exchange.closedByServer).toBe(true)
      return firstResponse(exchange.text)
    }
  }
}

describe('named bad inputs', () => {
  it('has at least 100 cases with unique names', () => {
    expect(BAD_INPUTS.length).toBeGreaterThanOrEqual(100)
    expect(new Set(BAD_INPUTS.map((c) => c.name)).size).toBe(BAD_INPUTS.length)
  })

  for (const c of BAD_INPUTS) {
    it(c.name, async () => {
      const before = await storedState(broker.db)
      const request = typeof c.send === 'function' ? c.send(fixtures) : c.send
      const answer = await send(request)
      statuses.push({ name: c.name, status: answer.status })
      expect(answer.status).toBe(c.status)
      if (c.error !== null) {
        expect(answer.json?.error, JSON.stringify(answer.json)).toEqual(expect.any(String))
        expect(answer.json.error.startsWith(c.error), `error ${JSON.stringify(answer.json.error)}`).toBe(true)
      }
      const after = await storedState(broker.db)
      if (c.storesMessages === undefined) {
        expect(after).toEqual(before)
      } else {
        expect(after.messages - before.messages).toBe(c.storesMessages)
      }
    })
  }

  it('answered none of them with a 5xx, and the broker still serves', async () => {
    expect(statuses).toHaveLength(BAD_INPUTS.length)
    expect(statuses.filter((s) => s.status >= 500)).toEqual([])
    expect((await http(broker, 'GET', '/health')).status).toBe(200)
    const push = await http(broker, 'POST', '/api/v1/push', { items: [{ queue: 'hx-after', payload: 'ok' }] })
    expect(push.body).toEqual([expect.objectContaining({ status: 'queued' })])
    expect(await messagesOfQueue(broker.db, 'hx-after')).toBe(1)
  })
})
