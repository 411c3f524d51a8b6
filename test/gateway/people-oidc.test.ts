/**
 * OpenID Connect sign-in at the gateway (docs/gateway.md, "People: users, sessions and sign-in") against a real
 * provider (the `oidc-provider` package) in a real Chromium: from the gateway's sign-in page to the provider's login
 * and consent, back through the callback (authorization code with PKCE) to the dashboard with a session of the user
 * whose --oidc-subject matches; by verified email on a replica configured so; an unknown subject refused naming it;
 * a callback without its flow cookie refused; the variables checked together.
 */
import net from 'node:net'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { resolveGatewayConfig } from '../../src/gateway/config/resolve.js'
import { createUser } from '../../src/gateway/people/users.js'
import { createApiKey } from '../../src/gateway/store/api-keys.js'
import { createTenant } from '../../src/gateway/store/tenants.js'
import type { ConfigError } from '../../src/platform/config/config-error.js'
import { http, startTestBroker, type TestBroker } from '../support/broker.js'
import { createEmptyDatabase, dropDatabase } from '../support/cli-harness.js'
import { startTestGateway, type TestGateway } from '../support/gateway.js'
import {
  OIDC_CLIENT_ID,
  OIDC_CLIENT_SECRET,
  startTestOidcProvider,
  type TestOidcProvider,
} from '../support/oidc-provider.js'
import { closeBrowser, expectText, launchBrowser, openPage } from '../dashboard/browser.js'

/** A free port: bound, then closed, for a gateway whose callback URL must be known before it starts. */
async function freePort(): Promise<number> {
  const server = net.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as net.AddressInfo).port
  await new Promise((resolve) => server.close(resolve))
  return port
}

/** Goes through the provider's development login (any password) and consent pages. */
async function signInAtProvider(page: Page, login: string): Promise<void> {
  await page.locator('input[name=login]').fill(login)
  await page.locator('input[name=password]').fill('anything')
  await page.getByRole('button', { name: 'Sign-in' }).click()
  await page.getByRole('button', { name: 'Continue' }).click()
}

describe('OpenID Connect sign-in', () => {
  let browser: Browser
  let provider: TestOidcProvider
  let broker: TestBroker
  let database: string
  let bySubject: TestGateway
  let byEmail: TestGateway

  beforeAll(async () => {
    browser = await launchBrowser()
    provider = await startTestOidcProvider()
    broker = await startTestBroker({ label: 'gw_oidc', config: { tenancy: { header: 'X-Queen-Tenant' } } })
    database = await createEmptyDatabase('gw_oidc')
    const ports = [await freePort(), await freePort()]
    const callbacks = ports.map((port) => `http://127.0.0.1:${port}/proxy/oidc/callback`)
    const oidcEnv = (callback: string) => ({
      PROXY_OIDC_ISSUER: provider.issuer,
      PROXY_OIDC_CLIENT_ID: OIDC_CLIENT_ID,
      PROXY_OIDC_CLIENT_SECRET: OIDC_CLIENT_SECRET,
      PROXY_OIDC_REDIRECT_URL: callback,
      PROXY_OIDC_SCOPES: 'openid email',
    })
    provider.configure(callbacks)
    bySubject = await startTestGateway({
      upstreams: [broker.url],
      database,
      port: ports[0],
      env: oidcEnv(callbacks[0]!),
    })
    byEmail = await startTestGateway({
      upstreams: [broker.url],
      database,
      port: ports[1],
      env: { ...oidcEnv(callbacks[1]!), PROXY_OIDC_USER_CLAIM: 'email' },
    })
    for (const tenant of ['acme', 'globex']) {
      await createTenant(bySubject.db, tenant)
      const { key } = await createApiKey(bySubject.db, { tenant, role: 'read-write' })
      const pushed = await http(
        bySubject,
        'POST',
        '/api/v1/push',
        { items: [{ queue: `${tenant}-oidc`, payload: { tenant } }] },
        { authorization: `Bearer ${key}` },
      )
      expect(pushed.status).toBe(200)
    }
    await broker.services.observability.statsJob.runOnce()
    await createUser(bySubject.db, { name: 'carol', tenant: 'acme', role: 'read-only', oidcSubject: 'carol-sub' })
    await createUser(bySubject.db, {
      name: 'dave@example.com',
      tenant: 'globex',
      role: 'read-write',
      password: 'x'.repeat(12),
    })
  }, 60_000)
  afterAll(async () => {
    await closeBrowser(browser)
    await bySubject?.close()
    await byEmail?.close()
    if (database) await dropDatabase(database)
    await broker?.close()
    await provider?.close()
  })

  async function freshPage() {
    const recorded = await openPage(browser)
    // The provider's development pages import a web font: nothing leaves the machine in a test.
    await recorded.context.route(/^https:\/\/fonts\./, (route) => route.abort())
    return recorded
  }

  it('signs in through the provider and lands on the dashboard with a session of the matching user', async () => {
    const { page, context } = await freshPage()
    await page.goto(`${bySubject.url}/proxy/login?rd=${encodeURIComponent('/queues')}`)
    await page.getByRole('link', { name: 'Sign in with your identity provider' }).click()
    await page.waitForURL((url) => url.href.startsWith(provider.issuer))
    await signInAtProvider(page, 'carol-sub')
    await page.waitForURL(`${bySubject.url}/queues`)
    await expectText(page, 'acme-oidc')
    expect(await page.getByText('globex-oidc').count()).toBe(0)
    const session = (await context.cookies(bySubject.url)).find((cookie) => cookie.name === 'queen_session')
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax' })
    expect(session!.value).toMatch(/^qs_/)
    const me = await page.evaluate<any>("fetch('/api/me').then((answer) => answer.json())")
    expect(me.user).toMatchObject({ name: 'carol', tenant: 'acme', role: 'read-only' })
    // The flow cookie was used once and cleared.
    expect((await context.cookies(`${bySubject.url}/proxy/oidc/callback`)).map((cookie) => cookie.name)).not.toContain(
      'queen_oidc',
    )
    await context.close()
  })

  it('finds the user by verified email where PROXY_OIDC_USER_CLAIM=email', async () => {
    const { page, context } = await freshPage()
    await page.goto(`${byEmail.url}/proxy/oidc/start?rd=${encodeURIComponent('/queues')}`)
    await signInAtProvider(page, 'dave')
    await page.waitForURL(`${byEmail.url}/queues`)
    await expectText(page, 'globex-oidc')
    expect(await page.getByText('acme-oidc').count()).toBe(0)
    const me = await page.evaluate<any>("fetch('/api/me').then((answer) => answer.json())")
    expect(me.user).toMatchObject({ name: 'dave@example.com', tenant: 'globex' })
    await context.close()
  })

  it('refuses a subject no user has, naming it, without a session', async () => {
    const { page, context } = await freshPage()
    await page.goto(`${bySubject.url}/proxy/oidc/start`)
    await signInAtProvider(page, 'stranger')
    await expectText(page, 'no gateway user has OpenID Connect subject stranger')
    expect((await context.cookies(bySubject.url)).map((cookie) => cookie.name)).not.toContain('queen_session')
    await context.close()
  })

  it('refuses a callback without its flow cookie, and a gateway without OIDC has no such routes', async () => {
    const forged = await http(bySubject, 'GET', '/proxy/oidc/callback?code=abc&state=def')
    expect(forged.status).toBe(400)
    expect(forged.body.error).toContain('no flow cookie')
    // A flow cookie of a real start, with another state: the callback is refused (state check, no session).
    const start = await fetch(`${bySubject.url}/proxy/oidc/start`, { redirect: 'manual' })
    expect(start.status).toBe(302)
    expect(new URL(start.headers.get('location')!).searchParams.get('code_challenge_method')).toBe('S256')
    const flow = start.headers.get('set-cookie')!.split(';')[0]!
    expect(flow).toMatch(/^queen_oidc=/)
    const wrongState = await fetch(`${bySubject.url}/proxy/oidc/callback?code=abc&state=not-the-state`, {
      headers: { cookie: flow },
      redirect: 'manual',
    })
    expect(wrongState.status).toBe(401)
    expect(((await wrongState.json()) as { error: string }).error).toContain('OpenID Connect sign-in failed')
    expect(wrongState.headers.get('set-cookie')).not.toContain('queen_session=qs_')
    const plain = await startTestGateway({ upstreams: [broker.url], label: 'gw_no_oidc' })
    try {
      expect((await http(plain, 'GET', '/proxy/oidc/start')).body).toEqual({
        error: 'OpenID Connect sign-in is not configured (PROXY_OIDC_ISSUER)',
      })
      expect(await (await fetch(`${plain.url}/proxy/login`)).text()).not.toContain('identity provider')
    } finally {
      await plain.close()
    }
  })

  it('checks the OIDC variables together, naming each', () => {
    const problems = (env: Record<string, string>) => {
      try {
        resolveGatewayConfig({ env })
        return []
      } catch (error) {
        return (error as ConfigError).problems
      }
    }
    expect(problems({ PROXY_OIDC_ISSUER: 'http://idp.example.com' })).toEqual([
      'config error: PROXY_OIDC_ISSUER: "http://idp.example.com" must be an https URL (http only on loopback)',
      'config error: PROXY_OIDC_ISSUER needs PROXY_OIDC_CLIENT_ID',
      'config error: PROXY_OIDC_ISSUER needs PROXY_OIDC_REDIRECT_URL',
    ])
    expect(problems({ PROXY_OIDC_CLIENT_ID: 'x' })).toEqual([
      'config error: PROXY_OIDC_CLIENT_ID needs PROXY_OIDC_ISSUER',
    ])
    expect(
      problems({
        PROXY_OIDC_ISSUER: 'https://idp.example.com',
        PROXY_OIDC_CLIENT_ID: 'x',
        PROXY_OIDC_REDIRECT_URL: 'https://gw.example.com/proxy/oidc/callback',
      }),
    ).toEqual([])
  })
})
