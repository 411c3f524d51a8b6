/**
 * The CLI's HTTP client (docs/cli.md, "HTTP behaviour" and "Exit codes") against the real in-process broker where the
 * broker can produce the answer, and against a small local server for the answers it cannot be made to give on demand
 * (401/403, a 5xx sequence, a 200 carrying `error`, a hang, a self-signed certificate).
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import http from 'node:http'
import https from 'node:https'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { HttpClient, HttpRequestError } from '../../src/cli/http-client.js'
import { startTestBroker, type TestBroker } from '../support/broker.js'
import { tempDir } from '../support/cli-harness.js'

let broker: TestBroker
beforeAll(async () => {
  broker = await startTestBroker({ label: 'cli_http' })
})
afterAll(async () => {
  await broker.close()
})

interface Seen {
  method: string
  url: string
  headers: http.IncomingHttpHeaders
}

/** A local server answering with `answer(n)` for the n-th request (from 1). */
async function withServer(
  answer: (n: number, request: http.IncomingMessage, response: http.ServerResponse) => void,
  body: (url: string, seen: Seen[]) => Promise<void>,
  options: { key?: Buffer; cert?: Buffer } = {},
): Promise<void> {
  const seen: Seen[] = []
  const handler = (request: http.IncomingMessage, response: http.ServerResponse) => {
    seen.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers })
    request.resume()
    answer(seen.length, request, response)
  }
  const server = options.key
    ? https.createServer({ key: options.key, cert: options.cert }, handler)
    : http.createServer(handler)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  try {
    await body(`${options.key ? 'https' : 'http'}://127.0.0.1:${port}`, seen)
  } finally {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
}

function json(response: http.ServerResponse, status: number, value: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value))
}

async function failure(promise: Promise<unknown>): Promise<HttpRequestError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  )
  expect(error).toBeInstanceOf(HttpRequestError)
  return error as HttpRequestError
}

function client(server: string, extra: Partial<ConstructorParameters<typeof HttpClient>[0]> = {}) {
  const trace: string[] = []
  const instance = new HttpClient({
    server,
    timeoutMs: 5000,
    retryDelaysMs: [10, 20],
    trace: (line) => trace.push(line),
    ...extra,
  })
  return { client: instance, trace }
}

describe('HttpClient against the broker', () => {
  it('returns the parsed answer of a GET and traces method, URL, status and time', async () => {
    const { client: c, trace } = client(`${broker.url}/`)
    const answer = await c.get<{ maintenanceMode: boolean }>('/api/v1/system/maintenance')
    expect(answer.maintenanceMode).toBe(false)
    expect(trace).toHaveLength(1)
    expect(trace[0]).toMatch(new RegExp(`^http: GET ${broker.url}/api/v1/system/maintenance 200 \\d+ms$`))
  })

  it('maps a 400 to exit 1 with the broker text unchanged, without retrying a POST', async () => {
    const { client: c, trace } = client(broker.url)
    const error = await failure(c.post('/api/v1/system/maintenance', { enabled: 'yes' }))
    expect(error.exitCode).toBe(1)
    expect(error.status).toBe(400)
    expect(error.message).toBe('enabled (boolean) is required')
    expect(trace).toHaveLength(1)
  })

  it('maps a 404 to exit 1 and does not retry it', async () => {
    const { client: c, trace } = client(broker.url)
    const error = await failure(c.get('/api/v1/no-such-route'))
    expect(error.exitCode).toBe(1)
    expect(error.status).toBe(404)
    expect(error.message).toBe('Route GET /api/v1/no-such-route not found')
    expect(trace).toHaveLength(1)
  })
})

describe('HttpClient answers and retries', () => {
  it('sends the bearer token and the tenancy header, and never traces the token', async () => {
    await withServer(
      (_n, _request, response) => json(response, 200, { ok: true }),
      async (url, seen) => {
        const { client: c, trace } = client(url, { token: 's3cret-token', tenant: 'acme', tenancyHeader: 'X-Tenant' })
        await c.get('/api/v1/x', { query: { a: 1, skip: undefined } })
        expect(seen[0]!.headers.authorization).toBe('Bearer s3cret-token')
        expect(seen[0]!.headers['x-tenant']).toBe('acme')
        expect(seen[0]!.url).toBe('/api/v1/x?a=1')
        expect(trace.join('\n')).not.toContain('s3cret-token')
        // Operator-only routes refuse the tenancy header, so their callers leave it out.
        await c.get('/api/v1/system/maintenance', { tenant: false })
        expect(seen[1]!.headers['x-tenant']).toBeUndefined()
        expect(seen[1]!.headers.authorization).toBe('Bearer s3cret-token')
      },
    )
  })

  it('maps 401 and 403 to exit 3 with a hint about the token', async () => {
    await withServer(
      (n, _request, response) =>
        n === 1
          ? json(response, 401, { error: 'Authentication required' })
          : json(response, 403, { error: 'Insufficient permissions' }),
      async (url) => {
        const { client: c } = client(url)
        const unauthorized = await failure(c.get('/api/v1/system/maintenance'))
        expect(unauthorized).toMatchObject({ exitCode: 3, status: 401, message: 'Authentication required' })
        expect(unauthorized.hint).toContain('no token was sent')
        const forbidden = await failure(client(url, { token: 't' }).client.get('/api/v1/system/maintenance'))
        expect(forbidden).toMatchObject({ exitCode: 3, status: 403, message: 'Insufficient permissions' })
      },
    )
  })

  it('retries a GET on 5xx (three attempts) and succeeds when the broker recovers', async () => {
    await withServer(
      (n, _request, response) => (n < 3 ? json(response, 503, { error: 'draining' }) : json(response, 200, { ok: n })),
      async (url, seen) => {
        const { client: c, trace } = client(url)
        expect(await c.get('/api/v1/x')).toEqual({ ok: 3 })
        expect(seen).toHaveLength(3)
        expect(trace.filter((line) => line.includes(' 503 '))).toHaveLength(2)
      },
    )
  })

  it('gives up after three attempts on 5xx with exit 2 and a hint naming the server', async () => {
    await withServer(
      (_n, _request, response) => json(response, 500, { error: 'boom' }),
      async (url, seen) => {
        const error = await failure(client(url).client.get('/api/v1/x'))
        expect(seen).toHaveLength(3)
        expect(error).toMatchObject({ exitCode: 2, status: 500, message: 'boom' })
        expect(error.hint).toContain(url)
      },
    )
  })

  it('never retries a POST, even on 5xx', async () => {
    await withServer(
      (_n, _request, response) =>
        json(response, 503, { error: 'cannot persist maintenance mode: database unavailable' }),
      async (url, seen) => {
        const error = await failure(client(url).client.post('/api/v1/system/maintenance', { enabled: true }))
        expect(seen).toHaveLength(1)
        expect(error.exitCode).toBe(2)
        expect(error.message).toBe('cannot persist maintenance mode: database unavailable')
      },
    )
  })

  it('treats a 200 whose body carries error as an error', async () => {
    await withServer(
      (n, _request, response) =>
        n === 1
          ? json(response, 200, { error: 'Queue not found', code: 'QUEEN_ERR_QUEUE_NOT_FOUND' })
          : json(response, 200, { success: false, error: 'database unavailable (connection refused)' }),
      async (url) => {
        const { client: c } = client(url)
        const notFound = await failure(c.post('/api/v1/x', {}))
        expect(notFound).toMatchObject({ exitCode: 1, message: 'Queue not found', code: 'QUEEN_ERR_QUEUE_NOT_FOUND' })
        const dataPlane = await failure(c.post('/api/v1/x', {}))
        expect(dataPlane).toMatchObject({ exitCode: 2, message: 'database unavailable (connection refused)' })
      },
    )
  })

  it('exits 2 with a hint naming the server when nothing listens, after three traced attempts', async () => {
    let closedUrl = ''
    await withServer(
      () => undefined,
      (url) => {
        closedUrl = url
        return Promise.resolve()
      },
    )
    const { client: c, trace } = client(closedUrl)
    const error = await failure(c.get('/api/v1/system/maintenance'))
    expect(error.exitCode).toBe(2)
    expect(error.code).toBe('unreachable')
    expect(error.message).toBe(`cannot reach the broker at ${closedUrl}: ECONNREFUSED`)
    expect(error.hint).toContain(closedUrl)
    expect(trace).toHaveLength(3)
    expect(trace[0]).toContain('ECONNREFUSED')
    expect(trace[0]).toContain('(retry 1/2 in 10 ms)')
  })

  it('times out a request that gets no answer (exit 2)', async () => {
    await withServer(
      () => undefined,
      async (url) => {
        const error = await failure(client(url, { timeoutMs: 200 }).client.post('/api/v1/x', {}))
        expect(error.exitCode).toBe(2)
        expect(error.code).toBe('timeout')
        expect(error.message).toContain('within 200 ms')
        expect(error.hint).toContain('--timeout')
      },
    )
  })

  it('verifies certificates of an https broker unless insecure is set', async () => {
    const dir = await tempDir('tls')
    try {
      execFileSync(
        'openssl',
        ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1'].concat([
          '-keyout',
          path.join(dir, 'key.pem'),
          '-out',
          path.join(dir, 'cert.pem'),
        ]),
        { stdio: 'ignore' },
      )
      const key = readFileSync(path.join(dir, 'key.pem'))
      const cert = readFileSync(path.join(dir, 'cert.pem'))
      await withServer(
        (_n, _request, response) => json(response, 200, { secure: true }),
        async (url) => {
          const strict = await failure(client(url, { retryDelaysMs: [] }).client.get('/api/v1/x'))
          expect(strict.exitCode).toBe(2)
          expect(strict.message).toContain(url)
          expect(strict.hint).toContain('--insecure')
          expect(await client(url, { insecure: true }).client.get('/api/v1/x')).toEqual({ secure: true })
        },
        { key, cert },
      )
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
