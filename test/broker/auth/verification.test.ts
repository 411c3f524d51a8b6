/**
 * JWT verification and authorization on a real broker (docs/operations.md, "Token verification", "Claims and roles" and
 * "Skip paths"; docs/http-api.md, "Auth classes"): HS256 with iss/aud, every 401 and 403 shape, role classes, skip
 * paths matched on the routed path, and `queen_auth_failures_total`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { http, startTestBroker, type TestBroker } from '../../support/broker.js'
import { parsePrometheusText } from '../../support/prometheus-text.js'
import { rawRequest } from './raw-http.js'
import { bearer, hsToken, hsTokenFromJson, noneToken, SECRET } from './tokens.js'

const ISSUER = 'https://idp.test'
const AUDIENCE = 'queen'
const now = () => Math.floor(Date.now() / 1000)

let broker: TestBroker
beforeAll(async () => {
  broker = await startTestBroker({
    label: 'auth-verify',
    config: { auth: { enabled: true, secret: SECRET, issuer: ISSUER, audience: AUDIENCE, clockSkewSeconds: 30 } },
  })
})
afterAll(async () => {
  await broker.close()
})

/** A valid token for this broker, with `claims` on top. */
function token(claims: Record<string, unknown> = {}): Promise<string> {
  return hsToken({ sub: 'alice', role: 'read-write', iss: ISSUER, aud: AUDIENCE, ...claims })
}

const PUSH = { items: [{ queue: 'auth-q', payload: { n: 1 } }] }

async function storedMessages(): Promise<number> {
  const { rows } = await broker.db.query('SELECT count(*)::int AS n FROM queen.messages')
  return rows[0].n
}

async function authFailures(): Promise<Map<string, number>> {
  const text = (await http(broker, 'GET', '/metrics/prometheus')).body as string
  const counts = new Map<string, number>()
  for (const sample of parsePrometheusText(text).samples('queen_auth_failures_total')) {
    counts.set(sample.labels.reason ?? '', sample.value)
  }
  return counts
}

describe('401: missing or invalid tokens (docs/http-api.md, "Auth classes")', () => {
  it('no Authorization header: 401 Authentication required, nothing stored', async () => {
    const answer = await http(broker, 'POST', '/api/v1/push', PUSH)
    expect(answer.status).toBe(401)
    expect(answer.body).toEqual({ error: 'Authentication required', code: 'QUEEN_ERR_UNAUTHORIZED' })
    expect(answer.headers.get('www-authenticate')).toBe('Bearer')
    expect(answer.headers.get('x-request-id')).toBeTruthy()
    expect(await storedMessages()).toBe(0)
  })

  it('HEAD routes (fastify adds one per GET) are gated like their GET', async () => {
    const anonymous = await rawRequest(broker.url, 'HEAD', '/api/v1/resources/queues')
    expect(anonymous.status).toBe(401)
    const reader = await rawRequest(broker.url, 'HEAD', '/api/v1/resources/queues', {
      headers: bearer(await token({ role: 'read-only' })),
    })
    expect(reader.status).toBe(200)
  })

  it('a bare token without the Bearer scheme is refused; the scheme is case-insensitive', async () => {
    const valid = await token()
    const bare = await http(broker, 'POST', '/api/v1/push', PUSH, { authorization: valid })
    expect(bare.status).toBe(401)
    expect(bare.body.error).toBe('Authentication required')
    const basic = await http(broker, 'POST', '/api/v1/push', PUSH, { authorization: `Basic ${valid}` })
    expect(basic.status).toBe(401)
    const lower = await http(broker, 'POST', '/api/v1/push', PUSH, { authorization: `bearer ${valid}` })
    expect(lower.status, JSON.stringify(lower.body)).toBe(200)
  })

  it('alg=none is refused', async () => {
    const answer = await http(broker, 'POST', '/api/v1/push', PUSH, {
      authorization: `Bearer ${noneToken({ sub: 'alice', role: 'admin', iss: ISSUER, aud: AUDIENCE })}`,
    })
    expect(answer.status).toBe(401)
    expect(answer.body.error).toBe('Invalid token')
  })

  it('a token signed with another secret: Invalid token signature', async () => {
    const forged = await hsToken(
      { sub: 'alice', role: 'admin', iss: ISSUER, aud: AUDIENCE },
      'another-secret-of-thirty-two-bytes!!',
    )
    const answer = await http(broker, 'POST', '/api/v1/push', PUSH, bearer(forged))
    expect(answer.status).toBe(401)
    expect(answer.body).toEqual({ error: 'Invalid token signature', code: 'QUEEN_ERR_UNAUTHORIZED' })
  })

  it('garbage and truncated tokens: Invalid token', async () => {
    const valid = await token()
    for (const bad of ['not-a-jwt', 'a.b.c', valid.slice(0, valid.lastIndexOf('.'))]) {
      const answer = await http(broker, 'GET', '/api/v1/resources/queues', undefined, bearer(bad))
      expect(answer.status, bad).toBe(401)
      expect(answer.body.error, bad).toBe('Invalid token')
    }
  })

  it('a validly signed token whose JSON repeats a key is refused, naming the key (issue 40)', async () => {
    const claims = `"sub":"alice","iss":"${ISSUER}","aud":"${AUDIENCE}","exp":${now() + 3600}`
    const header = '{"alg":"HS256","typ":"JWT"}'
    const before = await authFailures()
    for (const [headerJson, payloadJson, error] of [
      [header, `{${claims},"role":"read-only","role":"admin"}`, 'Invalid token: the payload repeats the key "role"'],
      // Compared as decoded, as JSON.parse compares them.
      [
        header,
        `{${claims},"role":"read-only","\\u0072ole":"admin"}`,
        'Invalid token: the payload repeats the key "role"',
      ],
      [header, `{${claims},"role":"admin","ext":{"t":1,"t":2}}`, 'Invalid token: the payload repeats the key "t"'],
      [
        '{"alg":"none","alg":"HS256","typ":"JWT"}',
        `{${claims},"role":"admin"}`,
        'Invalid token: the header repeats the key "alg"',
      ],
    ] as const) {
      const answer = await http(
        broker,
        'DELETE',
        '/api/v1/queues/auth-q/clear',
        undefined,
        bearer(hsTokenFromJson(headerJson, payloadJson)),
      )
      expect(answer.status, payloadJson).toBe(401)
      expect(answer.body).toEqual({ error, code: 'QUEEN_ERR_UNAUTHORIZED' })
    }
    const after = await authFailures()
    expect((after.get('repeated_key') ?? 0) - (before.get('repeated_key') ?? 0)).toBe(4)
    // The same token without the repeat is accepted: the refusal is the repeat, not the hand-made signature.
    const single = await http(
      broker,
      'DELETE',
      '/api/v1/queues/auth-q/clear',
      undefined,
      bearer(hsTokenFromJson(header, `{${claims},"role":"admin"}`)),
    )
    expect(single.status).not.toBe(401)
  })

  it('expired beyond the clock skew: Token has expired; within the skew: accepted', async () => {
    const expired = await http(
      broker,
      'GET',
      '/api/v1/resources/queues',
      undefined,
      bearer(await token({ exp: now() - 60 })),
    )
    expect(expired.status).toBe(401)
    expect(expired.body.error).toBe('Token has expired')
    const withinSkew = await http(
      broker,
      'GET',
      '/api/v1/resources/queues',
      undefined,
      bearer(await token({ exp: now() - 10 })),
    )
    expect(withinSkew.status).toBe(200)
  })

  it('nbf or iat in the future beyond the skew: Token not yet valid', async () => {
    for (const claims of [{ nbf: now() + 120 }, { iat: now() + 120 }]) {
      const answer = await http(broker, 'GET', '/api/v1/resources/queues', undefined, bearer(await token(claims)))
      expect(answer.status, JSON.stringify(claims)).toBe(401)
      expect(answer.body.error, JSON.stringify(claims)).toBe('Token not yet valid')
    }
    const nearFuture = await http(
      broker,
      'GET',
      '/api/v1/resources/queues',
      undefined,
      bearer(await token({ nbf: now() + 10 })),
    )
    expect(nearFuture.status).toBe(200)
  })

  it('wrong or missing iss and aud are refused with their own messages', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ iss: 'https://evil.test' }, 'Invalid token issuer'],
      [{ iss: undefined }, 'Invalid token issuer'],
      [{ aud: 'other' }, 'Invalid token audience'],
      [{ aud: ['other', 'more'] }, 'Invalid token audience'],
    ]
    for (const [claims, message] of cases) {
      const answer = await http(broker, 'GET', '/api/v1/resources/queues', undefined, bearer(await token(claims)))
      expect(answer.status, message).toBe(401)
      expect(answer.body.error, JSON.stringify(claims)).toBe(message)
    }
    const listed = await http(
      broker,
      'GET',
      '/api/v1/resources/queues',
      undefined,
      bearer(await token({ aud: ['x', AUDIENCE] })),
    )
    expect(listed.status).toBe(200)
  })
})

describe('403: roles against route classes (docs/operations.md, "Claims and roles")', () => {
  it('read-only may read, not write', async () => {
    const readOnly = bearer(await token({ role: 'read-only' }))
    expect((await http(broker, 'GET', '/api/v1/resources/queues', undefined, readOnly)).status).toBe(200)
    for (const [method, path, body] of [
      ['POST', '/api/v1/push', PUSH],
      ['GET', '/api/v1/pop/queue/auth-q?wait=false', undefined],
      ['POST', '/api/v1/configure', { queue: 'auth-q' }],
    ] as const) {
      const answer = await http(broker, method, path, body, readOnly)
      expect(answer.status, path).toBe(403)
      expect(answer.body, path).toEqual({ error: 'Insufficient permissions', code: 'QUEEN_ERR_FORBIDDEN' })
    }
  })

  it('read-write may write, not call admin routes; admin may', async () => {
    const readWrite = bearer(await token({ role: 'read-write' }))
    const admin = bearer(await token({ role: 'admin' }))
    expect((await http(broker, 'POST', '/api/v1/configure', { queue: 'auth-admin' }, readWrite)).status).toBe(200)
    for (const [method, path, body] of [
      ['POST', '/api/v1/system/maintenance', { enabled: false }],
      ['GET', '/api/v1/system/maintenance', undefined],
      ['DELETE', '/api/v1/queues/auth-admin/clear', undefined],
      ['DELETE', '/api/v1/resources/queues/auth-admin', undefined],
      ['POST', '/api/v1/stats/refresh', undefined],
      ['POST', '/internal/api/notify', { queue: 'auth-admin' }],
    ] as const) {
      const refused = await http(broker, method, path, body, readWrite)
      expect(refused.status, path).toBe(403)
      expect(refused.body.error, path).toBe('Insufficient permissions')
    }
    expect((await http(broker, 'GET', '/api/v1/system/maintenance', undefined, admin)).status).toBe(200)
    expect((await http(broker, 'DELETE', '/api/v1/resources/queues/auth-admin', undefined, admin)).status).toBe(200)
  })

  it('roles come from the string or the array claim, the highest wins; a wrong type is no role', async () => {
    const fromArray = bearer(await token({ role: undefined, roles: ['read-only', 'admin'] }))
    expect((await http(broker, 'GET', '/api/v1/system/maintenance', undefined, fromArray)).status).toBe(200)
    const both = bearer(await token({ role: 'read-only', roles: ['read-write'] }))
    expect((await http(broker, 'POST', '/api/v1/configure', { queue: 'auth-roles' }, both)).status).toBe(200)
    for (const claims of [
      { role: ['admin'] },
      { role: undefined, roles: 'admin' },
      { role: 'superuser' },
      { role: undefined },
    ]) {
      const answer = await http(broker, 'GET', '/api/v1/resources/queues', undefined, bearer(await token(claims)))
      expect(answer.status, JSON.stringify(claims)).toBe(403)
    }
  })
})

describe('public routes and JWT_SKIP_PATHS (docs/operations.md, "Skip paths")', () => {
  it('/health, /health/live and the default skip list answer without a token', async () => {
    for (const path of ['/health', '/health/live', '/metrics', '/metrics/prometheus']) {
      expect((await http(broker, 'GET', path)).status, path).toBe(200)
    }
  })

  it('bypass attempts never borrow an exemption: they route to a protected handler or to a 404', async () => {
    const before = await storedMessages()
    const attempts = [
      '/health/../api/v1/push',
      '/health/%2e%2e/api/v1/push',
      '/health/%2E%2E/api/v1/push',
      '//api/v1/push',
      '/health//../api/v1/push',
      '/%61pi/v1/push',
      '/api/v1/push/',
      '/API/v1/push',
      '/metrics/../api/v1/push',
    ]
    for (const target of attempts) {
      const answer = await rawRequest(broker.url, 'POST', target, { body: PUSH })
      expect([401, 404], target).toContain(answer.status)
    }
    for (const target of ['/api/v1/push?', '/api/v1/push?/health', '/api/v1/push?x=/metrics', '/api/v1/push#/health']) {
      const answer = await rawRequest(broker.url, 'POST', target, { body: PUSH })
      expect(answer.status, target).toBe(401)
    }
    const readAttempts = ['/health/../api/v1/system/maintenance', '/api/v1/system/maintenance?/health']
    for (const target of readAttempts) {
      expect([401, 404], target).toContain((await rawRequest(broker.url, 'GET', target)).status)
    }
    expect(await storedMessages()).toBe(before)
  })

  it('with a token, the identity is recorded: every stored message carries the sub, a body producerSub is ignored', async () => {
    const pushed = await http(
      broker,
      'POST',
      '/api/v1/push',
      { items: [{ queue: 'auth-sub', payload: { n: 1 }, producerSub: 'mallory' }] },
      bearer(await token({ sub: 'svc-orders' })),
    )
    expect(pushed.status).toBe(200)
    const popped = await http(broker, 'GET', '/api/v1/pop/queue/auth-sub?wait=false', undefined, bearer(await token()))
    expect(popped.body.messages.map((message: any) => message.producerSub)).toEqual(['svc-orders'])
  })
})

describe('queen_auth_failures_total (docs/operations.md, "Prometheus series")', () => {
  it('counts each refusal under its reason', async () => {
    const before = await authFailures()
    await http(broker, 'GET', '/api/v1/resources/queues')
    await http(broker, 'GET', '/api/v1/resources/queues', undefined, bearer(await token({ exp: now() - 3600 })))
    await http(broker, 'GET', '/api/v1/system/maintenance', undefined, bearer(await token({ role: 'read-write' })))
    const after = await authFailures()
    const delta = (reason: string) => (after.get(reason) ?? 0) - (before.get(reason) ?? 0)
    expect(delta('missing')).toBe(1)
    expect(delta('expired')).toBe(1)
    expect(delta('forbidden')).toBe(1)
    expect(delta('invalid_signature')).toBe(0)
  })
})

describe('JWT_REQUIRE_EXP (docs/operations.md, "Claims and roles")', () => {
  it('off by default: a token without exp is accepted', async () => {
    const answer = await http(broker, 'GET', '/api/v1/resources/queues', undefined, bearer(await token({ exp: null })))
    expect(answer.status).toBe(200)
  })

  it('on: a token without exp is refused, one with exp accepted', async () => {
    const strict = await startTestBroker({
      label: 'auth-require-exp',
      config: { auth: { enabled: true, secret: SECRET, requireExp: true } },
    })
    try {
      const without = await http(
        strict,
        'GET',
        '/api/v1/resources/queues',
        undefined,
        bearer(await hsToken({ role: 'admin', exp: null })),
      )
      expect(without.status).toBe(401)
      expect(without.body.error).toBe('Invalid token')
      const withExp = await http(
        strict,
        'GET',
        '/api/v1/resources/queues',
        undefined,
        bearer(await hsToken({ role: 'admin' })),
      )
      expect(withExp.status).toBe(200)
    } finally {
      await strict.close()
    }
  })
})
