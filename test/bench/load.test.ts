/**
 * The bench's HTTP client against a real local HTTP server: what the load generator sends and reads back.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { HttpClient } from '../../bench/load.js'

let server: http.Server
let client: HttpClient
const seen: { url: string; contentType: string | undefined; body: string }[] = []

beforeAll(async () => {
  server = http.createServer((request, response) => {
    let body = ''
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')))
    request.on('end', () => {
      seen.push({ url: request.url ?? '', contentType: request.headers['content-type'], body })
      if (request.url === '/slow') return // never answers: the client's timeout must end it
      if (request.url === '/text') {
        response.writeHead(502, { 'content-type': 'text/plain' })
        response.end('bad gateway')
        return
      }
      response.writeHead(200, { 'content-type': 'application/json' })
      response.end(JSON.stringify({ echo: body ? (JSON.parse(body) as unknown) : null, method: request.method }))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  client = new HttpClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, 4)
})

afterAll(async () => {
  await client.close()
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

describe('HttpClient', () => {
  it('sends a JSON body and parses the JSON answer', async () => {
    const answer = await client.request('POST', '/api/v1/push?x=1', { items: [{ queue: 'q', payload: { n: 1 } }] })
    expect(answer).toEqual({
      status: 200,
      body: { echo: { items: [{ queue: 'q', payload: { n: 1 } }] }, method: 'POST' },
    })
    const request = seen.find((entry) => entry.url === '/api/v1/push?x=1')
    expect(request?.contentType).toBe('application/json')
  })

  it('sends no body and no content type on a GET', async () => {
    const answer = await client.request('GET', '/api/v1/pop/queue/q?batch=1')
    expect(answer).toEqual({ status: 200, body: { echo: null, method: 'GET' } })
    const request = seen.find((entry) => entry.url === '/api/v1/pop/queue/q?batch=1')
    expect(request).toMatchObject({ contentType: undefined, body: '' })
  })

  it('returns a body that is not JSON as text, with its status', async () => {
    expect(await client.request('GET', '/text')).toEqual({ status: 502, body: 'bad gateway' })
  })

  it('fails a request whose answer does not come within timeoutMs', async () => {
    const started = performance.now()
    await expect(client.request('GET', '/slow', undefined, { timeoutMs: 200 })).rejects.toThrow(/timeout/i)
    expect(performance.now() - started).toBeLessThan(5_000)
  })

  it('rejects when the caller aborts the request', async () => {
    const controller = new AbortController()
    const pending = client.request('GET', '/slow', undefined, { signal: controller.signal })
    setTimeout(() => controller.abort(), 50)
    await expect(pending).rejects.toThrow()
    expect(controller.signal.aborted).toBe(true)
  })
})
