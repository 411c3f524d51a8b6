/**
 * The dashboard's files (docs/http-api.md, "Unknown routes"; docs/dashboard.md): GET / and /assets/* from a build
 * folder with precompressed siblings, the headers (caching, encoding, Content-Security-Policy), the SPA fallback
 * and what stays a 404, path traversal, QUEEN_DASHBOARD=false, a broker without a build, the files public with
 * JWT on, and the `listening` line of a real `queenctl serve`. Built in a temporary folder here; the real build
 * is driven in a browser by test/dashboard/.
 */
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { request } from 'node:http'
import path from 'node:path'
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestBroker, type TestBroker } from '../../support/broker.js'
import { SECRET } from '../auth/tokens.js'

const INDEX =
  '<!doctype html><title>dashboard fixture</title><script type="module" src="/assets/app-abc123.js"></script>'
const SCRIPT = `console.log(${JSON.stringify('x'.repeat(2000))})`
const SECRET_TEXT = 'not for the browser'

let root: string
let build: string

/** Raw GET (fetch would decompress and hide Content-Encoding); the path is sent exactly as written. */
function get(
  broker: TestBroker,
  target: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  const url = new URL(broker.url)
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, method, path: target, headers }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end()
  })
}

beforeAll(async () => {
  root = await mkdtemp('/tmp/queenctl-dashboard-')
  build = path.join(root, 'build')
  await mkdir(path.join(build, 'assets'), { recursive: true })
  await writeFile(path.join(root, 'secret.txt'), SECRET_TEXT)
  await writeFile(path.join(build, 'notes.txt'), SECRET_TEXT)
  for (const [name, body] of [
    ['index.html', INDEX],
    ['assets/app-abc123.js', SCRIPT],
  ] as const) {
    await writeFile(path.join(build, name), body)
    await writeFile(path.join(build, `${name}.gz`), gzipSync(body))
    await writeFile(path.join(build, `${name}.br`), brotliCompressSync(body))
  }
  // Only a gzip sibling; and a file with none.
  await writeFile(path.join(build, 'assets/style-def456.css'), 'body{color:red}')
  await writeFile(path.join(build, 'assets/style-def456.css.gz'), gzipSync('body{color:red}'))
  await writeFile(path.join(build, 'assets/logo-1.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>')
  // A link out of the build is not a file of the build.
  await symlink(path.join(root, 'secret.txt'), path.join(build, 'assets/link.js'))
})
afterAll(async () => {
  await rm(root, { recursive: true, force: true })
})

describe('a broker serving a dashboard build', () => {
  let broker: TestBroker
  beforeAll(async () => {
    broker = await startTestBroker({ label: 'dashboard-files', dashboardDir: build })
  })
  afterAll(async () => {
    await broker.close()
  })

  it('GET / answers index.html, revalidated, with the same-origin security headers', async () => {
    const answer = await get(broker, '/')
    expect(answer.status).toBe(200)
    expect(answer.body.toString()).toBe(INDEX)
    expect(answer.headers['content-type']).toBe('text/html; charset=utf-8')
    expect(answer.headers['cache-control']).toBe('no-cache')
    expect(answer.headers['vary']).toBe('Accept-Encoding')
    expect(answer.headers['content-encoding']).toBeUndefined()
    expect(answer.headers['x-content-type-options']).toBe('nosniff')
    const csp = String(answer.headers['content-security-policy'])
    expect(csp).toContain("default-src 'self'")
    expect(csp).toContain("script-src 'self'")
    expect(csp).toContain("connect-src 'self'")
    expect(csp).toContain("frame-ancestors 'none'")
    expect(csp).not.toContain('unsafe-inline')
    expect(broker.app.dashboard).toBe('on')
  })

  it('hashed assets are immutable, typed by extension', async () => {
    const script = await get(broker, '/assets/app-abc123.js')
    expect(script.status).toBe(200)
    expect(script.body.toString()).toBe(SCRIPT)
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8')
    expect(script.headers['cache-control']).toBe('public, max-age=31536000, immutable')
    expect(script.headers['content-security-policy']).toBeDefined()
    const style = await get(broker, '/assets/style-def456.css')
    expect(style.headers['content-type']).toBe('text/css; charset=utf-8')
    const svg = await get(broker, '/assets/logo-1.svg')
    expect(svg.headers['content-type']).toBe('image/svg+xml')
  })

  it('sends the brotli or gzip sibling the client accepts, brotli first', async () => {
    const cases: [string | undefined, string | undefined][] = [
      ['gzip, deflate, br', 'br'],
      ['gzip', 'gzip'],
      ['br;q=0, gzip', 'gzip'],
      ['*', 'br'],
      ['identity', undefined],
      ['gzip;q=0, br;q=0', undefined],
      [undefined, undefined],
    ]
    for (const [accept, expected] of cases) {
      const answer = await get(
        broker,
        '/assets/app-abc123.js',
        accept === undefined ? {} : { 'accept-encoding': accept },
      )
      expect(answer.headers['content-encoding'], `Accept-Encoding: ${accept}`).toBe(expected)
      expect(answer.headers['vary']).toBe('Accept-Encoding')
      const body =
        expected === 'br'
          ? brotliDecompressSync(answer.body)
          : expected === 'gzip'
            ? gunzipSync(answer.body)
            : answer.body
      expect(body.toString()).toBe(SCRIPT)
    }
    // A file with only a gzip sibling is never sent as brotli; one with none is sent as it is.
    expect(
      (await get(broker, '/assets/style-def456.css', { 'accept-encoding': 'br, gzip' })).headers['content-encoding'],
    ).toBe('gzip')
    expect(
      (await get(broker, '/assets/logo-1.svg', { 'accept-encoding': 'br, gzip' })).headers['content-encoding'],
    ).toBeUndefined()
    // index.html too.
    const index = await get(broker, '/', { 'accept-encoding': 'br' })
    expect(index.headers['content-encoding']).toBe('br')
    expect(brotliDecompressSync(index.body).toString()).toBe(INDEX)
  })

  it('any other unmatched GET outside the API prefixes answers index.html (the SPA fallback)', async () => {
    for (const target of [
      '/queues',
      '/queues?sort=pending&dir=desc',
      '/queues/orders',
      '/a/b/c',
      '/notes.txt',
      '/favicon.ico',
    ]) {
      const answer = await get(broker, target)
      expect(answer.status, target).toBe(200)
      expect(answer.body.toString(), target).toBe(INDEX)
      expect(answer.headers['cache-control']).toBe('no-cache')
      expect(answer.headers['content-security-policy']).toBeDefined()
    }
  })

  it('unmatched API paths, other methods and missing assets stay 404s in the error shape', async () => {
    const cases: [string, string][] = [
      ['GET', '/api/v1/nothing'],
      ['GET', '/streams/v1/nothing'],
      ['GET', '/internal/nothing'],
      ['GET', '/health/nothing'],
      ['GET', '/metrics/nothing'],
      ['POST', '/queues'],
      ['DELETE', '/'],
      ['OPTIONS', '/'],
      ['GET', '/assets/missing-000.js'],
      ['GET', '/assets/'],
    ]
    for (const [method, target] of cases) {
      const answer = await get(broker, target, {}, method)
      expect(answer.status, `${method} ${target}`).toBe(404)
      const body = JSON.parse(answer.body.toString())
      expect(body).toEqual({ error: `Route ${method} ${target} not found`, code: 'QUEEN_ERR_ROUTE_NOT_FOUND' })
    }
  })

  it('no path reaches a file outside the build, nor a file of the build that is not served', async () => {
    const targets = [
      '/assets/../secret.txt',
      '/assets/../../secret.txt',
      '/assets/..%2F..%2Fsecret.txt',
      '/assets/%2e%2e/%2e%2e/secret.txt',
      '/assets/%2E%2E%2F%2E%2E%2Fsecret.txt',
      '/assets/..%5C..%5Csecret.txt',
      '/assets//' + path.join(root, 'secret.txt'),
      '/assets/%2F' + encodeURIComponent(path.join(root, 'secret.txt')),
      '/assets/..%2Fnotes.txt',
      '/assets/link.js',
      '/assets/app-abc123.js%00.txt',
      '/..%2Fsecret.txt',
      '/../secret.txt',
    ]
    for (const target of targets) {
      const answer = await get(broker, target)
      expect(answer.body.toString(), target).not.toContain(SECRET_TEXT)
      expect([200, 400, 404], target).toContain(answer.status)
      // A 200 is only ever the SPA fallback's index.html.
      if (answer.status === 200) expect(answer.body.toString(), target).toBe(INDEX)
    }
  })
})

describe('QUEEN_DASHBOARD=false', () => {
  it('answers 404 at /, /assets/* and unknown pages, as before the dashboard', async () => {
    const broker = await startTestBroker({
      label: 'dashboard-off',
      dashboardDir: build,
      env: { QUEEN_DASHBOARD: 'false' },
    })
    try {
      expect(broker.app.dashboard).toBe('off')
      for (const target of ['/', '/assets/app-abc123.js', '/queues']) {
        const answer = await get(broker, target)
        expect(answer.status, target).toBe(404)
        expect(JSON.parse(answer.body.toString()).error).toBe(`Route GET ${target} not found`)
      }
    } finally {
      await broker.close()
    }
  })
})

describe('a broker without a build', () => {
  it('boots, and its dashboard URLs answer 404 saying the dashboard is not built', async () => {
    const broker = await startTestBroker({ label: 'dashboard-missing', dashboardDir: path.join(root, 'no-such-build') })
    try {
      expect(broker.app.dashboard).toBe('not built')
      for (const target of ['/', '/queues']) {
        const answer = await get(broker, target)
        expect(answer.status).toBe(404)
        expect(JSON.parse(answer.body.toString()).error).toBe(
          `Route GET ${target} not found: the dashboard is not built (run npm run build)`,
        )
      }
      expect((await get(broker, '/health')).status).toBe(200)
    } finally {
      await broker.close()
    }
  })
})

describe('with JWT on', () => {
  it('the dashboard files are public whatever JWT_SKIP_PATHS says; the API is not', async () => {
    const broker = await startTestBroker({
      label: 'dashboard-jwt',
      dashboardDir: build,
      config: { auth: { enabled: true, secret: SECRET, skipPaths: [] } },
    })
    try {
      for (const target of ['/', '/assets/app-abc123.js', '/queues?sort=name']) {
        expect((await get(broker, target)).status, target).toBe(200)
      }
      expect((await get(broker, '/api/v1/status')).status).toBe(401)
    } finally {
      await broker.close()
    }
  })
})
