/**
 * JWT_JWKS_URL against a local JWKS server started here (docs/operations.md, "JWKS"): a storm of unknown `kid`s
 * costs at most one fetch per cooldown, a rotated-in key works after one refetch, and a failing or
 * garbage endpoint leaves the last good key set in use. Fetches are counted at the server and in
 * `queen_jwks_fetches_total`.
 */
import { randomUUID } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { exportJWK, generateKeyPair, type CryptoKey, type JWK } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { http, startTestBroker, type TestBroker } from '../../support/broker.js'
import { parsePrometheusText } from '../../support/prometheus-text.js'
import { sleep } from '../../support/queen.js'
import { bearer, signedToken } from './tokens.js'

const CLAIMS = { sub: 'svc', role: 'read-only' }
const READ = '/api/v1/resources/queues'

/** A JWKS endpoint whose key list and answer the test changes. */
class JwksServer {
  keys: JWK[] = []
  mode: 'ok' | 'error' | 'garbage' = 'ok'
  fetches = 0
  private server: Server | undefined

  async start(): Promise<string> {
    this.server = createServer((_request, response) => {
      this.fetches += 1
      if (this.mode === 'error') {
        response.statusCode = 500
        response.end('down')
        return
      }
      response.setHeader('content-type', 'application/json')
      response.end(this.mode === 'garbage' ? '{"keys": "nope"' : JSON.stringify({ keys: this.keys }))
    })
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve))
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/.well-known/jwks.json`
  }

  async close(): Promise<void> {
    await new Promise((resolve) => this.server?.close(resolve))
  }
}

async function signingKey(kid: string): Promise<{ kid: string; privateKey: CryptoKey; jwk: JWK }> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true })
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' } }
}

async function read(broker: TestBroker, key: { kid: string; privateKey: CryptoKey }): Promise<number> {
  const token = await signedToken(CLAIMS, key.privateKey, { alg: 'RS256', kid: key.kid })
  return (await http(broker, 'GET', READ, undefined, bearer(token))).status
}

async function fetchCounter(broker: TestBroker): Promise<Record<string, number>> {
  const text = (await http(broker, 'GET', '/metrics/prometheus')).body as string
  const samples = parsePrometheusText(text).samples('queen_jwks_fetches_total')
  return Object.fromEntries(samples.map((sample) => [sample.labels.outcome, sample.value]))
}

describe('JWKS: unknown-kid storm and rotation', () => {
  const jwks = new JwksServer()
  let broker: TestBroker
  let first: Awaited<ReturnType<typeof signingKey>>
  const COOLDOWN_MS = 2000
  beforeAll(async () => {
    first = await signingKey('k1')
    jwks.keys = [first.jwk]
    const url = await jwks.start()
    broker = await startTestBroker({
      label: 'auth-jwks',
      config: { auth: { enabled: true, algorithm: 'RS256', jwksUrl: url, jwksCooldownMs: COOLDOWN_MS } },
    })
  })
  afterAll(async () => {
    await broker.close()
    await jwks.close()
  })

  it('a storm of tokens with random kids makes no fetch beyond the first within the cooldown', async () => {
    const started = Date.now()
    expect(await read(broker, first)).toBe(200)
    expect(jwks.fetches).toBe(1)
    const stranger = await signingKey('unused')
    const tokens = await Promise.all(
      Array.from({ length: 200 }, () => signedToken(CLAIMS, stranger.privateKey, { alg: 'RS256', kid: randomUUID() })),
    )
    const storm = await Promise.all(
      tokens.map(async (token) => (await http(broker, 'GET', READ, undefined, bearer(token))).status),
    )
    const elapsed = Date.now() - started
    expect(new Set(storm)).toEqual(new Set([401]))
    // At most one fetch per cooldown: none within the first, whatever the storm's size.
    expect(jwks.fetches).toBeLessThanOrEqual(1 + Math.floor(elapsed / COOLDOWN_MS))
    expect(jwks.fetches).toBeLessThan(5)

    // After the cooldown, the next unknown kid refetches once, however many arrive together.
    const afterStorm = jwks.fetches
    await sleep(COOLDOWN_MS + 100)
    await Promise.all(
      Array.from({ length: 50 }, async () => read(broker, { kid: randomUUID(), privateKey: stranger.privateKey })),
    )
    expect(jwks.fetches).toBe(afterStorm + 1)
    expect((await fetchCounter(broker)).ok).toBe(jwks.fetches)
    expect(await read(broker, first)).toBe(200)
  })

  it('rotation: a key added at the server works after one refetch, and the old key keeps working', async () => {
    await sleep(COOLDOWN_MS + 100)
    const second = await signingKey('k2')
    jwks.keys = [first.jwk, second.jwk]
    const before = jwks.fetches
    expect(await read(broker, second)).toBe(200)
    expect(jwks.fetches).toBe(before + 1)
    expect(await read(broker, second)).toBe(200)
    expect(await read(broker, first)).toBe(200)
    expect(jwks.fetches).toBe(before + 1)
  })
})

describe('JWKS: the last good key set survives a failing endpoint', () => {
  const jwks = new JwksServer()
  let broker: TestBroker
  let key: Awaited<ReturnType<typeof signingKey>>
  beforeAll(async () => {
    key = await signingKey('k1')
    jwks.keys = [key.jwk]
    const url = await jwks.start()
    broker = await startTestBroker({
      label: 'auth-jwks-fail',
      // A 200 ms cache lifetime (no variable goes that low), so the test sees several refreshes.
      config: {
        auth: { enabled: true, algorithm: 'RS256', jwksUrl: url, jwksRefreshIntervalSeconds: 0.2, jwksCooldownMs: 200 },
      },
    })
  })
  afterAll(async () => {
    await broker.close()
    await jwks.close()
  })

  it('keeps verifying with the last good keys when the endpoint errors or answers garbage', async () => {
    expect(await read(broker, key)).toBe(200)
    for (const mode of ['error', 'garbage'] as const) {
      jwks.mode = mode
      const before = jwks.fetches
      await sleep(300)
      expect(await read(broker, key), mode).toBe(200)
      expect(jwks.fetches, mode).toBe(before + 1)
    }
    const counter = await fetchCounter(broker)
    expect(counter).toMatchObject({ ok: 1, error: 1, invalid: 1 })
    jwks.mode = 'ok'
    await sleep(300)
    expect(await read(broker, key)).toBe(200)
    expect((await fetchCounter(broker)).ok).toBe(2)
  })
})

describe('JWKS: no key set yet', () => {
  it('an endpoint that never answered refuses tokens with 401 and retries only after the cooldown', async () => {
    const jwks = new JwksServer()
    jwks.mode = 'error'
    const url = await jwks.start()
    const broker = await startTestBroker({
      label: 'auth-jwks-none',
      config: { auth: { enabled: true, algorithm: 'RS256', jwksUrl: url, jwksCooldownMs: 60_000 } },
    })
    try {
      const key = await signingKey('k1')
      jwks.keys = [key.jwk]
      for (let attempt = 0; attempt < 20; attempt += 1) expect(await read(broker, key)).toBe(401)
      expect(jwks.fetches).toBe(1)
    } finally {
      await broker.close()
      await jwks.close()
    }
  })
})

describe('JWKS: a hanging endpoint', () => {
  it('times out after JWT_JWKS_TIMEOUT_MS, answers 401 and counts a timeout', async () => {
    const sockets = new Set<Socket>()
    const hanging = createServer(() => undefined)
    hanging.on('connection', (socket) => sockets.add(socket))
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve))
    const url = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/jwks.json`
    const broker = await startTestBroker({
      label: 'auth-jwks-hang',
      config: { auth: { enabled: true, algorithm: 'RS256', jwksUrl: url, jwksTimeoutMs: 300 } },
    })
    try {
      const key = await signingKey('k1')
      const answer = await http(
        broker,
        'GET',
        READ,
        undefined,
        bearer(await signedToken(CLAIMS, key.privateKey, { alg: 'RS256', kid: 'k1' })),
      )
      expect(answer.status).toBe(401)
      expect(answer.body.error).toBe('Invalid token')
      expect(await fetchCounter(broker)).toMatchObject({ timeout: 1, ok: 0 })
    } finally {
      await broker.close()
      for (const socket of sockets) socket.destroy()
      await new Promise((resolve) => hanging.close(resolve))
    }
  })
})
