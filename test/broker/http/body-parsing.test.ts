/**
 * Request bodies, content types, size limits, unknown routes and response headers at the HTTP edge
 * (docs/http-api.md, "Request bodies", "Response headers", "Error shapes" and "Unknown routes"; docs/reliability.md,
 * "Hazards", H27).
 */
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { http, startTestBroker, type TestBroker } from '../../support/broker.js'
import { messagesOfQueue, rawRequest, snapshot, socketExchange, type RawResponse } from './edge-helpers.js'

const JSON_TYPE = 'application/json; charset=utf-8'
const DEFAULT_LIMIT = 32 * 1024 * 1024

let broker: TestBroker

/** Headers of every response this file received, for the checks of the last test. */
const seen: { label: string; headers: Record<string, string>; json: boolean }[] = []

beforeAll(async () => {
  broker = await startTestBroker({ label: 'body_parsing' })
})

afterAll(async () => {
  await broker.close()
})

function record(label: string, headers: Record<string, string>, json: boolean): void {
  seen.push({ label, headers, json })
}

/** JSON over fetch (the support helper), recording the response headers. */
async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const answer = await http(broker, method, path, body, { origin: 'http://elsewhere.example', ...headers })
  record(`${method} ${path}`, Object.fromEntries(answer.headers), typeof answer.body === 'object')
  return answer
}

/** A request with exactly the given headers (node:http), recording the response headers. */
async function raw(
  target: { url: string },
  options: Parameters<typeof rawRequest>[1],
  label = `${options.method} ${options.path}`,
): Promise<RawResponse> {
  const answer = await rawRequest(target.url, options)
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(answer.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value
  }
  record(label, headers, answer.json !== undefined)
  return answer
}

const pushBody = (queue: string, payload: unknown = 1) => JSON.stringify({ items: [{ queue, payload }] })

describe('content types (docs/http-api.md, "Request bodies")', () => {
  it('parses a JSON body sent as application/json; charset=utf-8', async () => {
    const answer = await call('POST', '/api/v1/push', pushBody('edge-charset', 'ü'), {
      'content-type': 'application/json; charset=utf-8',
    })
    expect(answer.status).toBe(200)
    expect(answer.body).toEqual([expect.objectContaining({ index: 0, status: 'queued', queueName: 'edge-charset' })])
    expect(answer.headers.get('content-type')).toBe(JSON_TYPE)
    expect(await messagesOfQueue(broker.db, 'edge-charset')).toBe(1)
  })

  it('parses a JSON body sent without any Content-Type', async () => {
    const body = Buffer.from(pushBody('edge-no-type'), 'utf8')
    const answer = await raw(broker, {
      method: 'POST',
      path: '/api/v1/push',
      headers: { 'content-length': String(body.length) },
      body,
    })
    expect(answer.status).toBe(200)
    expect(answer.json).toEqual([expect.objectContaining({ index: 0, status: 'queued', queueName: 'edge-no-type' })])
    expect(await messagesOfQueue(broker.db, 'edge-no-type')).toBe(1)
  })

  it.each([
    ['text/plain', 'text/plain'],
    ['text/plain; charset=utf-8', 'text/plain'],
    ['application/x-www-form-urlencoded', 'application/x-www-form-urlencoded'],
    ['application/xml', 'application/xml'],
  ])('answers 415 to a body sent as %s, and stores nothing', async (contentType, shown) => {
    const before = await snapshot(broker.db)
    const answer = await call('POST', '/api/v1/push', pushBody('edge-415'), { 'content-type': contentType })
    expect(answer.status).toBe(415)
    expect(answer.body).toEqual({
      error: `Unsupported Content-Type '${shown}': send application/json`,
      code: expect.stringMatching(/^QUEEN_ERR_[A-Z_]+$/),
    })
    expect(answer.headers.get('content-type')).toBe(JSON_TYPE)
    expect(await snapshot(broker.db)).toEqual(before)
  })
})

describe('empty bodies are {} (docs/http-api.md, "Request bodies")', () => {
  it.each([
    ['Content-Type: application/json', { 'content-type': 'application/json', 'content-length': '0' }],
    ['Content-Type: text/plain', { 'content-type': 'text/plain', 'content-length': '0' }],
    ['no Content-Type (Python)', { 'content-length': '0' }],
  ])('lease extend with an empty body and %s answers 200', async (_label, headers) => {
    const leaseId = randomUUID()
    const answer = await raw(broker, { method: 'POST', path: `/api/v1/lease/${leaseId}/extend`, headers })
    expect(answer.status).toBe(200)
    expect(answer.headers['content-type']).toBe(JSON_TYPE)
    expect(answer.json).toEqual([{ index: 0, leaseId, success: false, error: 'Lease not found', expiresAt: null }])
  })

  it.each([
    ['Content-Type: application/json', { 'content-type': 'application/json', 'content-length': '0' }],
    ['Content-Type: text/plain', { 'content-type': 'text/plain', 'content-length': '0' }],
  ])('push with an empty body and %s answers 400 items array is required', async (_label, headers) => {
    const before = await snapshot(broker.db)
    const answer = await raw(broker, { method: 'POST', path: '/api/v1/push', headers })
    expect(answer.status).toBe(400)
    expect(answer.json).toEqual({ error: 'items array is required', code: 'QUEEN_ERR_VALIDATION' })
    expect(await snapshot(broker.db)).toEqual(before)
  })
})

describe('bodies that do not parse', () => {
  it.each([
    ['a truncated document', '{"items": ['],
    ['unquoted keys', '{items: [{"queue": "edge-bad-json"}]}'],
    ['single quotes', "{'items': []}"],
    ['trailing garbage', '{"items": []} x'],
    ['a lone comma', ','],
  ])('answers 400 Invalid JSON to %s, and stores nothing', async (_label, text) => {
    const before = await snapshot(broker.db)
    const answer = await call('POST', '/api/v1/push', text, { 'content-type': 'application/json' })
    expect(answer.status).toBe(400)
    expect(answer.body).toEqual({
      error: expect.stringMatching(/^Invalid JSON: \S/),
      code: expect.stringMatching(/^QUEEN_ERR_[A-Z_]+$/),
    })
    expect(answer.headers.get('content-type')).toBe(JSON_TYPE)
    expect(await snapshot(broker.db)).toEqual(before)
  })

  it.each([
    ['__proto__ with empty items', '{"__proto__":{"x":1},"items":[]}'],
    ['constructor.prototype with empty items', '{"constructor":{"prototype":{"x":1}},"items":[]}'],
    ['__proto__ next to a valid item', '{"__proto__":{"x":1},"items":[{"queue":"edge-proto","payload":1}]}'],
    ['__proto__ inside a payload', '{"items":[{"queue":"edge-proto","payload":{"__proto__":{"polluted":true}}}]}'],
    [
      'constructor.prototype inside a payload',
      '{"items":[{"queue":"edge-proto","payload":{"constructor":{"prototype":{"polluted":true}}}}]}',
    ],
  ])('answers 400 to %s, and stores nothing', async (_label, text) => {
    const before = await snapshot(broker.db)
    const answer = await call('POST', '/api/v1/push', text, { 'content-type': 'application/json' })
    expect(answer.status).toBe(400)
    expect(answer.body).toEqual({ error: expect.any(String), code: expect.stringMatching(/^QUEEN_ERR_[A-Z_]+$/) })
    expect(answer.body.error.length).toBeGreaterThan(0)
    expect(await snapshot(broker.db)).toEqual(before)
    // The broker runs in this process: no prototype was polluted either.
    expect((Object.prototype as Record<string, unknown>).x).toBeUndefined()
    expect((Object.prototype as Record<string, unknown>).polluted).toBeUndefined()
  })
})

describe('size limits', () => {
  it('answers 413 past maxBodyBytes (Content-Length and chunked), accepting a body of exactly the limit', async () => {
    const small = await startTestBroker({ label: 'body_limit', config: { maxBodyBytes: 1024 } })
    try {
      const sized = (bytes: number) => {
        const prefix = '{"items":[{"queue":"edge-limit","payload":"'
        const suffix = '"}]}'
        const text = `${prefix}${'x'.repeat(bytes - prefix.length - suffix.length)}${suffix}`
        expect(Buffer.byteLength(text)).toBe(bytes)
        return text
      }
      const exact = await http(small, 'POST', '/api/v1/push', sized(1024))
      expect(exact.status).toBe(200)
      expect(exact.body[0]).toMatchObject({ status: 'queued' })
      const before = await snapshot(small.db)

      const over = await http(small, 'POST', '/api/v1/push', sized(1025))
      record('POST /api/v1/push (1025 bytes)', Object.fromEntries(over.headers), true)
      expect(over.status).toBe(413)
      expect(over.body).toEqual({
        error: 'Request body is larger than 1024 bytes',
        code: expect.stringMatching(/^QUEEN_ERR_[A-Z_]+$/),
      })
      expect(over.headers.get('content-type')).toBe(JSON_TYPE)

      const text = sized(4000)
      const chunked = await raw(small, {
        method: 'POST',
        path: '/api/v1/push',
        headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
        chunks: [text.slice(0, 1000), text.slice(1000, 2000), text.slice(2000)],
      })
      expect(chunked.status).toBe(413)
      expect(chunked.json).toMatchObject({ error: 'Request body is larger than 1024 bytes' })

      expect(await snapshot(small.db)).toEqual(before)
      expect(await messagesOfQueue(small.db, 'edge-limit')).toBe(1)
    } finally {
      await small.close()
    }
  })

  it('answers 413 to a 100 MiB Content-Length from the header alone, and closes the connection', async () => {
    const before = await snapshot(broker.db)
    const body = '{"items":[{"queue":"edge-huge","payload":1}]}'
    const exchange = await socketExchange(
      broker.url,
      'POST /api/v1/push HTTP/1.1\r\n' +
        'Host: 127.0.0.1\r\n' +
        'Content-Type: application/json\r\n' +
        'Content-Length: 104857600\r\n' +
        '\r\n' +
        body,
      5000,
    )
    // Only a few bytes of the announced 100 MiB were sent: an answer means the body was never awaited.
    expect(exchange.text).toMatch(/^HTTP\/1\.1 413 /)
    expect(exchange.firstByteMs).not.toBeNull()
    expect(exchange.firstByteMs!).toBeLessThan(2000)
    expect(exchange.text).toContain(`"error":"Request body is larger than ${DEFAULT_LIMIT} bytes"`)
    expect(exchange.text).toMatch(/\r\nx-request-id: \S+\r\n/i)
    expect(exchange.text).not.toMatch(/\r\naccess-control-/i)
    expect(exchange.closedByServer).toBe(true)
    expect(await snapshot(broker.db)).toEqual(before)

    const after = await call('POST', '/api/v1/push', pushBody('edge-after-huge'))
    expect(after.status).toBe(200)
  })

  it('answers 431 to a header block over 16 KiB', async () => {
    const answer = await rawRequest(broker.url, {
      method: 'GET',
      path: '/health',
      headers: { 'x-padding': 'p'.repeat(20 * 1024) },
    })
    expect(answer.status).toBe(431)
    const health = await call('GET', '/health')
    expect(health.status).toBe(200)
  })
})

describe('bodies on routes that read none', () => {
  it('ignores a non-JSON body on GET /health', async () => {
    const answer = await raw(broker, {
      method: 'GET',
      path: '/health',
      headers: { 'content-type': 'text/plain', 'content-length': '9' },
      body: 'not json!',
    })
    expect(answer.status).toBe(200)
    expect(answer.json).toMatchObject({ status: 'healthy' })
  })

  it('ignores a non-JSON body on DELETE /api/v1/consumer-groups/:group', async () => {
    const answer = await raw(broker, {
      method: 'DELETE',
      path: '/api/v1/consumer-groups/edge-nobody',
      headers: { 'content-type': 'text/plain', 'content-length': '9' },
      body: 'not json!',
    })
    expect(answer.status).toBe(200)
    expect(answer.json).toMatchObject({ success: true, consumerGroup: 'edge-nobody' })
  })
})

describe('unknown routes and CORS (docs/http-api.md, "Response headers" and "Unknown routes")', () => {
  it.each([
    ['GET', '/api/v1/nope', 'Route GET /api/v1/nope not found'],
    ['GET', '/api/v1/nope?batch=1', 'Route GET /api/v1/nope not found'],
    ['POST', '/api/v1/nope', 'Route POST /api/v1/nope not found'],
    ['DELETE', '/api/v1/push', 'Route DELETE /api/v1/push not found'],
    ['GET', '/streams/v1/nope', 'Route GET /streams/v1/nope not found'],
    ['GET', '/internal/api/nope', 'Route GET /internal/api/nope not found'],
    ['OPTIONS', '/api/v1/push', 'Route OPTIONS /api/v1/push not found'],
  ])('%s %s answers 404 naming the route', async (method, path, error) => {
    const answer = await call(method, path, undefined, { 'access-control-request-method': 'POST' })
    expect(answer.status).toBe(404)
    expect(answer.body).toEqual({ error, code: expect.stringMatching(/^QUEEN_ERR_[A-Z_]+$/) })
    expect(answer.headers.get('content-type')).toBe(JSON_TYPE)
    expect([...answer.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([])
  })
})

describe('response headers (docs/http-api.md, "Listener and prefixes" and "Response headers")', () => {
  it('every response of this file carried an X-Request-Id and no Access-Control-* header', async () => {
    // A few more kinds of answer: a pop, an ack, a validation error with an Origin header.
    await call('GET', '/api/v1/pop/queue/edge-charset?batch=1')
    await call('POST', '/api/v1/ack', { transactionId: 'x', partitionId: randomUUID() })
    await call('POST', '/api/v1/push', { items: 5 })

    expect(seen.length).toBeGreaterThan(30)
    const missing = seen.filter((response) => !response.headers['x-request-id']).map((response) => response.label)
    expect(missing).toEqual([])
    const ids = seen.map((response) => response.headers['x-request-id'])
    expect(new Set(ids).size).toBe(ids.length)
    const cors = seen.flatMap((response) =>
      Object.keys(response.headers)
        .filter((name) => name.toLowerCase().startsWith('access-control-'))
        .map((name) => `${response.label}: ${name}`),
    )
    expect(cors).toEqual([])
    const wrongType = seen
      .filter((response) => response.json && response.headers['content-type'] !== JSON_TYPE)
      .map((response) => `${response.label}: ${response.headers['content-type']}`)
    expect(wrongType).toEqual([])
  })
})
