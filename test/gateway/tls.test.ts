/**
 * TLS termination in the gateway (issue 36 item 8; docs/gateway.md, "TLS"): `queenctl proxy serve` with
 * PROXY_TLS_CERT and PROXY_TLS_KEY serves HTTPS; SIGHUP swaps the certificate without a restart, and a pair that
 * does not load leaves the one in use. Bad settings are refused at boot, naming the variable. Real process, real
 * TLS handshakes, the test certificates of test/fixtures/tls.
 */
import { X509Certificate } from 'node:crypto'
import { copyFile, readFile, writeFile } from 'node:fs/promises'
import type { IncomingHttpHeaders } from 'node:http'
import https from 'node:https'
import path from 'node:path'
import type { TLSSocket } from 'node:tls'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestBroker, type TestBroker } from '../support/broker.js'
import {
  createEmptyDatabase,
  dropDatabase,
  REPO_ROOT,
  runCli,
  startCli,
  tempDir,
  type TestProcess,
} from '../support/cli-harness.js'
import { serverConnection } from '../support/database.js'

const FIXTURES = path.join(REPO_ROOT, 'test/fixtures/tls')

/** One request on a new TLS connection: the answer and the fingerprint of the certificate the server presented. */
function httpsRequest(
  url: string,
  ca: Buffer[],
  options: { method?: string; json?: unknown } = {},
): Promise<{ status: number; body: string; headers: IncomingHttpHeaders; fingerprint: string }> {
  return new Promise((resolve, reject) => {
    const payload = options.json === undefined ? undefined : JSON.stringify(options.json)
    const request = https.request(
      url,
      {
        method: options.method ?? 'GET',
        ca,
        agent: false,
        headers: payload === undefined ? {} : { 'content-type': 'application/json' },
      },
      (response) => {
        const fingerprint = (response.socket as TLSSocket).getPeerCertificate().fingerprint256
        let body = ''
        response.setEncoding('utf8')
        response.on('data', (chunk: string) => (body += chunk))
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, body, headers: response.headers, fingerprint }),
        )
      },
    )
    request.on('error', reject)
    request.end(payload)
  })
}

const httpsGet = (url: string, ca: Buffer[]) => httpsRequest(url, ca)

function gatewayEnv(database: string, extra: Record<string, string>): Record<string, string> {
  const connection = serverConnection()
  return {
    PROXY_PG_HOST: String(connection.host),
    PROXY_PG_PORT: String(connection.port),
    PROXY_PG_USER: String(connection.user),
    PROXY_PG_PASSWORD: String(connection.password ?? ''),
    PROXY_PG_DATABASE: database,
    ...extra,
  }
}

describe('queenctl proxy serve with TLS', () => {
  let broker: TestBroker
  let database: string
  let dir: string
  let certFile: string
  let keyFile: string
  let gateway: TestProcess
  let origin: string
  const certs: Record<'a' | 'b', Buffer> = { a: Buffer.alloc(0), b: Buffer.alloc(0) }
  const fingerprints: Record<'a' | 'b', string> = { a: '', b: '' }

  beforeAll(async () => {
    broker = await startTestBroker({ label: 'gw_tls' })
    database = await createEmptyDatabase('gw_tls')
    dir = await tempDir('proxy-tls')
    for (const name of ['a', 'b'] as const) {
      certs[name] = await readFile(path.join(FIXTURES, `${name}.crt`))
      fingerprints[name] = new X509Certificate(certs[name]).fingerprint256
    }
    certFile = path.join(dir, 'tls.crt')
    keyFile = path.join(dir, 'tls.key')
    await copyFile(path.join(FIXTURES, 'a.crt'), certFile)
    await copyFile(path.join(FIXTURES, 'a.key'), keyFile)
    gateway = startCli(['proxy', 'serve', '--port', '0', '--host', '127.0.0.1', '--upstreams', broker.url], {
      env: gatewayEnv(database, { PROXY_TLS_CERT: certFile, PROXY_TLS_KEY: keyFile }),
    })
    const match = await gateway.waitFor(/\blistening\b.*\bhttp=([\d.]+):(\d+)/, 60_000)
    origin = `https://${match[1]}:${match[2]}`
  }, 90_000)

  afterAll(async () => {
    await gateway?.kill()
    if (database) await dropDatabase(database)
    await broker?.close()
  })

  it('serves HTTPS with the configured certificate, and says so at boot', async () => {
    const answer = await httpsGet(`${origin}/proxy/health/live`, [certs.a])
    expect(answer.status).toBe(200)
    expect(JSON.parse(answer.body)).toEqual({ status: 'live' })
    expect(answer.fingerprint).toBe(fingerprints.a)
    expect(gateway.output()).toContain(`config: tls cert=${certFile} key=${keyFile}`)
    expect(gateway.output()).toContain('CN=queen-gateway-test-a')
  })

  it('answers a broker route over TLS as over HTTP (a request without a key gets the 401)', async () => {
    const answer = await httpsGet(`${origin}/api/v1/resources/queues`, [certs.a])
    expect(answer.status).toBe(401)
    expect(JSON.parse(answer.body)).toEqual({ error: 'Authentication required' })
  })

  it('marks the session cookie of a sign-in over TLS Secure', async () => {
    const env = gatewayEnv(database, {})
    expect((await runCli(['proxy', 'tenant', 'create', 'acme'], { env })).code).toBe(0)
    const user = await runCli(['proxy', 'user', 'create', 'alice', '--tenant', 'acme', '--role', 'read-only'], {
      env,
      input: 'correct horse battery\n',
    })
    expect(user.code, user.stderr).toBe(0)
    const login = await httpsRequest(`${origin}/api/login`, [certs.a], {
      method: 'POST',
      json: { username: 'alice', password: 'correct horse battery' },
    })
    expect(login.status, login.body).toBe(200)
    const cookie = [login.headers['set-cookie'] ?? []].flat().find((line) => line.startsWith('queen_session='))
    expect(cookie).toMatch(/; Secure(;|$)/)
    expect(cookie).toMatch(/; HttpOnly(;|$)/)
  })

  it('presents the new certificate after SIGHUP, without a restart', async () => {
    await copyFile(path.join(FIXTURES, 'b.crt'), certFile)
    await copyFile(path.join(FIXTURES, 'b.key'), keyFile)
    gateway.child.kill('SIGHUP')
    await gateway.waitFor(/tls: certificate reloaded/, 10_000)
    const answer = await httpsGet(`${origin}/proxy/health/live`, [certs.b])
    expect(answer.fingerprint).toBe(fingerprints.b)
    expect(gateway.running()).toBe(true)
  })

  it('keeps the certificate in use when the new pair does not load, and logs why', async () => {
    // Certificate a with key b: not a pair.
    await copyFile(path.join(FIXTURES, 'a.crt'), certFile)
    gateway.child.kill('SIGHUP')
    await gateway.waitFor(/tls: reload failed/, 10_000)
    expect(gateway.output()).toMatch(/PROXY_TLS_KEY: .* is not the key of the certificate in PROXY_TLS_CERT/)
    const answer = await httpsGet(`${origin}/proxy/health/live`, [certs.b])
    expect(answer.status).toBe(200)
    expect(answer.fingerprint).toBe(fingerprints.b)
    expect(gateway.running()).toBe(true)
  })

  it('refuses to start with only one of the two variables, naming the missing one', async () => {
    const result = await runCli(['proxy', 'serve', '--port', '0'], {
      env: gatewayEnv(database, { PROXY_TLS_CERT: path.join(FIXTURES, 'a.crt') }),
    })
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('config error: PROXY_TLS_CERT needs PROXY_TLS_KEY')
  })

  it('refuses to start with a file it cannot read or a key that is not the certificate’s', async () => {
    const missing = await runCli(['proxy', 'serve', '--port', '0'], {
      env: gatewayEnv(database, { PROXY_TLS_CERT: path.join(dir, 'nope.crt'), PROXY_TLS_KEY: keyFile }),
    })
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain(`config error: PROXY_TLS_CERT: cannot read ${path.join(dir, 'nope.crt')} (ENOENT)`)

    const garbage = path.join(dir, 'garbage.key')
    await writeFile(garbage, 'not a key\n')
    const mismatched = await runCli(['proxy', 'serve', '--port', '0'], {
      env: gatewayEnv(database, { PROXY_TLS_CERT: path.join(FIXTURES, 'a.crt'), PROXY_TLS_KEY: garbage }),
    })
    expect(mismatched.code).toBe(1)
    expect(mismatched.stderr).toContain(`config error: PROXY_TLS_KEY: ${garbage}`)
  })
})
