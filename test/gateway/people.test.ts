/**
 * People at the gateway (docs/gateway.md, "People: users, sessions and sign-in"): password sign-in with a session
 * cookie, the same answer for a wrong password and an unknown user, a session used like a key of its tenant and role
 * (the brokers store the tenant's id), logout and user deletion ending sessions on a second replica within 2 s, the
 * login throttle, and ForwardAuth with its redirect allowlist both ways.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApiKey } from '../../src/gateway/store/api-keys.js'
import { createTenant, type Tenant } from '../../src/gateway/store/tenants.js'
import { createUser, deleteUser } from '../../src/gateway/people/users.js'
import { http, startTestBroker, type TestBroker } from '../support/broker.js'
import { startTestGateway, type TestGateway } from '../support/gateway.js'
import { createEmptyDatabase, dropDatabase } from '../support/cli-harness.js'

const PASSWORD = 'correct horse battery'
const LOGIN_URL = 'https://login.example.com/proxy/login'

async function login(gateway: TestGateway, username: string, password: string, headers: Record<string, string> = {}) {
  return http(gateway, 'POST', '/api/login', { username, password }, headers)
}

/** The `queen_session=...` pair of a login answer's Set-Cookie, ready for a Cookie header. */
function cookieOf(answer: { headers: Headers }): string {
  return answer.headers.get('set-cookie')!.split(';')[0]!
}

/** Polls until `check` is true or `ms` passed; returns the elapsed ms, or -1 on timeout. */
async function within(ms: number, check: () => Promise<boolean>): Promise<number> {
  const start = Date.now()
  while (Date.now() - start < ms) {
    if (await check()) return Date.now() - start
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return (await check()) ? Date.now() - start : -1
}

describe('people at the gateway', () => {
  let broker: TestBroker
  let database: string
  let first: TestGateway
  let second: TestGateway
  let acme: Tenant
  let globex: Tenant

  beforeAll(async () => {
    broker = await startTestBroker({ label: 'gw_people', config: { tenancy: { header: 'X-Queen-Tenant' } } })
    database = await createEmptyDatabase('gw_people')
    first = await startTestGateway({
      upstreams: [broker.url],
      database,
      env: {
        PROXY_SESSION_TTL_S: '3600',
        PROXY_AUTH_LOGIN_URL: LOGIN_URL,
        PROXY_AUTH_REDIRECT_ALLOWLIST: 'app.example.com, .apps.example.org',
      },
    })
    // The second replica has a sign-in page but no allowlist: its ForwardAuth must never redirect.
    second = await startTestGateway({ upstreams: [broker.url], database, env: { PROXY_AUTH_LOGIN_URL: LOGIN_URL } })
    acme = await createTenant(first.db, 'acme')
    globex = await createTenant(first.db, 'globex')
    await createUser(first.db, { name: 'alice', tenant: 'acme', role: 'read-write', password: PASSWORD })
    await createUser(first.db, { name: 'rita', tenant: 'globex', role: 'read-only', password: PASSWORD })
  })
  afterAll(async () => {
    await first?.close()
    await second?.close()
    if (database) await dropDatabase(database)
    await broker?.close()
  })

  it('signs in with a password: a session cookie (httpOnly, SameSite=Lax, Secure only over TLS) and /api/me', async () => {
    const answer = await login(first, 'alice', PASSWORD)
    expect(answer.status).toBe(200)
    expect(answer.body).toMatchObject({
      user: { name: 'alice', tenant: 'acme', tenantId: acme.id, role: 'read-write' },
      token: expect.stringMatching(/^qs_[A-Za-z0-9_-]{43}$/),
    })
    expect(Date.parse(answer.body.expiresAt) - Date.now()).toBeGreaterThan(3500_000)
    const cookie = answer.headers.get('set-cookie')!
    expect(cookie).toMatch(/^queen_session=qs_[A-Za-z0-9_-]{43}; /)
    expect(cookie).toContain('HttpOnly')
    expect(cookie).toContain('SameSite=Lax')
    expect(cookie).toContain('Path=/')
    expect(cookie).toMatch(/Max-Age=(3599|3600)\b/)
    expect(cookie).not.toContain('Secure')
    const overTls = await login(first, 'alice', PASSWORD, { 'x-forwarded-proto': 'https' })
    expect(overTls.headers.get('set-cookie')).toMatch(/; Secure$/)

    const me = await http(first, 'GET', '/api/me', undefined, { cookie: cookieOf(answer) })
    expect(me.status).toBe(200)
    expect(me.body.user).toEqual({ name: 'alice', tenant: 'acme', tenantId: acme.id, role: 'read-write' })
    // The same token works as a bearer token (queenctl login --method password stores it).
    const bearer = await http(second, 'GET', '/api/me', undefined, { authorization: `Bearer ${answer.body.token}` })
    expect(bearer.body.user.name).toBe('alice')
    expect((await http(first, 'GET', '/api/me')).status).toBe(401)
    // Only the hash of the token is stored.
    const stored = await first.db.query('SELECT token_hash FROM queen_proxy.sessions')
    expect(JSON.stringify(stored.rows)).not.toContain(answer.body.token.slice(3))
  })

  it('answers a wrong password exactly like an unknown user, and refuses a malformed body naming the field', async () => {
    const wrong = await login(first, 'alice', 'not the password')
    const unknown = await login(first, 'mallory', 'not the password')
    expect(wrong.status).toBe(401)
    expect(unknown.status).toBe(401)
    expect(wrong.body).toEqual({ error: 'Invalid username or password' })
    expect(unknown.body).toEqual(wrong.body)
    expect(wrong.headers.get('set-cookie')).toBeNull()
    expect(unknown.headers.get('set-cookie')).toBeNull()
    const noPassword = await http(first, 'POST', '/api/login', { username: 'alice' })
    expect(noPassword.status).toBe(400)
    expect(noPassword.body.error).toContain('password')
    const form = await http(first, 'POST', '/api/login', 'username=alice&password=x', {
      'content-type': 'application/x-www-form-urlencoded',
    })
    expect(form.status).toBe(400)
    expect(form.body.error).toContain('application/json')
  })

  it('slows down repeated failures per user name, known or not, with 429 and Retry-After', async () => {
    for (const name of ['rita', 'nobody-at-all']) {
      const statuses: number[] = []
      for (let attempt = 0; attempt < 5; attempt += 1) statuses.push((await login(first, name, 'guess')).status)
      expect(statuses).toEqual([401, 401, 401, 401, 429])
      const refused = await login(first, name, name === 'rita' ? PASSWORD : 'guess')
      expect(refused.status).toBe(429)
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    }
    // Other names are not affected.
    expect((await login(first, 'alice', PASSWORD)).status).toBe(200)
  })

  it('refuses sign-ins beyond a few password checks at once with 503, and serves again right after', async () => {
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, n) => login(second, `flood-${n}`, 'guess').then((answer) => answer.status)),
    )
    expect(answers.filter((status) => status === 503).length).toBeGreaterThan(0)
    expect(answers.filter((status) => status !== 503 && status !== 401)).toEqual([])
    expect((await login(second, 'alice', PASSWORD)).status).toBe(200)
  })

  it("treats a session like a key of the user's tenant and role: tenancy rewritten, roles and operator routes checked", async () => {
    const cookie = cookieOf(await login(first, 'alice', PASSWORD))
    const pushed = await http(
      first,
      'POST',
      '/api/v1/push',
      { items: [{ queue: 'people-orders', payload: { by: 'alice' } }] },
      { cookie, 'x-queen-tenant': globex.id },
    )
    expect(pushed.status, JSON.stringify(pushed.body)).toBe(200)
    // A page of another origin cannot use the cookie for a change (a sibling host of the same site included).
    const crossOrigin = await http(
      first,
      'POST',
      '/api/v1/push',
      { items: [{ queue: 'people-orders', payload: { by: 'evil' } }] },
      { cookie, origin: 'http://evil.example.com' },
    )
    expect(crossOrigin).toMatchObject({ status: 403, body: { error: 'Cross-origin request refused' } })
    const sameOrigin = await http(
      first,
      'POST',
      '/api/v1/push',
      { items: [{ queue: 'people-orders', payload: { by: 'alice again' } }] },
      { cookie, origin: first.url },
    )
    expect(sameOrigin.status).toBe(200)
    const stored = await broker.db.query("SELECT tenant FROM queen.queues WHERE name = 'people-orders'")
    expect(stored.rows).toEqual([{ tenant: acme.id }])
    const listed = await http(first, 'GET', '/api/v1/resources/queues', undefined, { cookie })
    expect(JSON.stringify(listed.body)).toContain('people-orders')
    expect((await http(first, 'GET', '/api/v1/system/maintenance', undefined, { cookie })).body).toEqual({
      error: 'operator-only route',
    })
    // A read-only user of another tenant: reads its own (empty) tenant, may not push.
    const rita = await login(second, 'rita', PASSWORD)
    const ritaCookie = cookieOf(rita)
    const theirs = await http(second, 'GET', '/api/v1/resources/queues', undefined, { cookie: ritaCookie })
    expect(theirs.status).toBe(200)
    expect(JSON.stringify(theirs.body)).not.toContain('people-orders')
    const refused = await http(
      second,
      'POST',
      '/api/v1/push',
      { items: [{ queue: 'nope', payload: {} }] },
      { cookie: ritaCookie },
    )
    expect(refused).toMatchObject({ status: 403, body: { error: 'Insufficient permissions' } })
  })

  it('ends a session on the other replica within 2 s of a logout, and clears the cookie', async () => {
    const answer = await login(first, 'alice', PASSWORD)
    const cookie = cookieOf(answer)
    // Both replicas have verified and cached the session.
    expect((await http(first, 'GET', '/api/v1/resources/queues', undefined, { cookie })).status).toBe(200)
    expect((await http(second, 'GET', '/api/v1/resources/queues', undefined, { cookie })).status).toBe(200)
    const out = await http(first, 'POST', '/api/logout', undefined, { cookie })
    expect(out.body).toEqual({ loggedOut: true })
    expect(out.headers.get('set-cookie')).toMatch(/^queen_session=; .*Max-Age=0/)
    expect((await http(first, 'GET', '/api/me', undefined, { cookie })).status).toBe(401)
    const elapsed = await within(2000, async () => {
      return (await http(second, 'GET', '/api/v1/resources/queues', undefined, { cookie })).status === 401
    })
    expect(elapsed).toBeGreaterThanOrEqual(0)
    expect((await http(second, 'GET', '/api/me', undefined, { cookie })).body).toEqual({
      error: 'Session expired or ended',
    })
  })

  it("ends a deleted user's sessions on every replica within 2 s", async () => {
    await createUser(first.db, { name: 'temp', tenant: 'acme', role: 'read-only', password: PASSWORD })
    const cookie = cookieOf(await login(second, 'temp', PASSWORD))
    expect((await http(first, 'GET', '/api/me', undefined, { cookie })).status).toBe(200)
    expect((await http(second, 'GET', '/api/me', undefined, { cookie })).status).toBe(200)
    await deleteUser(first.db, 'temp')
    for (const gateway of [first, second]) {
      const elapsed = await within(
        2000,
        async () => (await http(gateway, 'GET', '/api/me', undefined, { cookie })).status === 401,
      )
      expect(elapsed).toBeGreaterThanOrEqual(0)
    }
  })

  it('refuses an expired session', async () => {
    const cookie = cookieOf(await login(first, 'alice', PASSWORD))
    await first.db.query("UPDATE queen_proxy.sessions SET expires_at = now() - interval '1 second'")
    expect((await http(first, 'GET', '/api/v1/resources/queues', undefined, { cookie })).body).toEqual({
      error: 'Session expired or ended',
    })
  })

  it('ForwardAuth: 200 with identity headers for a session or a key, 401 without', async () => {
    const cookie = cookieOf(await login(first, 'alice', PASSWORD))
    const ok = await http(first, 'GET', '/proxy/auth/verify', undefined, { cookie })
    expect(ok.status).toBe(200)
    expect(ok.headers.get('x-queen-user')).toBe('alice')
    expect(ok.headers.get('x-queen-tenant-id')).toBe(acme.id)
    expect(ok.headers.get('x-queen-role')).toBe('read-write')
    const { key, id } = await createApiKey(first.db, { tenant: 'globex', role: 'producer' })
    const byKey = await http(second, 'GET', '/proxy/auth/verify', undefined, { authorization: `Bearer ${key}` })
    expect(byKey.status).toBe(200)
    expect(byKey.headers.get('x-queen-user')).toBe(`apikey:${id}`)
    expect(byKey.headers.get('x-queen-tenant-id')).toBe(globex.id)
    expect(byKey.headers.get('x-queen-role')).toBe('producer')
    const none = await http(first, 'GET', '/proxy/auth/verify', undefined, { accept: 'application/json' })
    expect(none).toMatchObject({ status: 401, body: { error: 'Authentication required' } })
  })

  it('ForwardAuth redirects a browser to sign-in only for an allowlisted host; otherwise 401 (fails closed)', async () => {
    const browser = { accept: 'text/html,application/xhtml+xml', 'x-forwarded-proto': 'https' }
    const verify = (gateway: TestGateway, headers: Record<string, string>) =>
      fetch(`${gateway.url}/proxy/auth/verify`, { headers: { ...browser, ...headers }, redirect: 'manual' })

    // Traefik's headers, an allowed host.
    const allowed = await verify(first, { 'x-forwarded-host': 'app.example.com', 'x-forwarded-uri': '/queues?x=1' })
    expect(allowed.status).toBe(302)
    const location = new URL(allowed.headers.get('location')!)
    expect(`${location.origin}${location.pathname}`).toBe(LOGIN_URL)
    expect(location.searchParams.get('rd')).toBe('https://app.example.com/queues?x=1')
    // nginx's X-Original-URL, a subdomain of an allowed suffix.
    const nginx = await verify(first, { 'x-original-url': 'https://team.apps.example.org/' })
    expect(nginx.status).toBe(302)
    expect(new URL(nginx.headers.get('location')!).searchParams.get('rd')).toBe('https://team.apps.example.org/')

    // Not on the list: no redirect.
    const unlisted: Record<string, string>[] = [
      { 'x-forwarded-host': 'evil.example.net', 'x-forwarded-uri': '/' },
      { 'x-forwarded-host': 'app.example.com.evil.net', 'x-forwarded-uri': '/' },
      { 'x-original-url': 'https://apps.example.org/' },
    ]
    for (const headers of unlisted) {
      const refused = await verify(first, headers)
      expect(refused.status, JSON.stringify(headers)).toBe(401)
      expect(refused.headers.get('location')).toBeNull()
    }
    // An empty allowlist redirects nowhere, even for the host the other replica allows.
    const empty = await verify(second, { 'x-forwarded-host': 'app.example.com', 'x-forwarded-uri': '/' })
    expect(empty.status).toBe(401)
    expect(empty.headers.get('location')).toBeNull()
  })

  it('serves a sign-in page that goes back only to an allowed target', async () => {
    const page = async (rd: string) => (await fetch(`${first.url}/proxy/login?rd=${encodeURIComponent(rd)}`)).text()
    expect(await page('https://app.example.com/x')).toContain('const next = "https://app.example.com/x"')
    expect(await page('https://evil.example.net/x')).toContain('const next = "/"')
    expect(await page('//evil.example.net/x')).toContain('const next = "/"')
    expect(await page('/queues')).toContain('const next = "/queues"')
  })
})
