/**
 * The brokers' dashboard behind the gateway with a signed-in person (docs/gateway.md, "People: users, sessions and
 * sign-in"), in a real Chromium: without a session the dashboard asks for a token; the gateway's sign-in page sets
 * an httpOnly SameSite=Lax cookie that page scripts cannot read and goes back to the dashboard, which then shows
 * the user's tenant's queues and not another tenant's; a wrong password is told without saying which part; logout
 * brings the token form back.
 */
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApiKey } from '../../src/gateway/store/api-keys.js'
import { createTenant } from '../../src/gateway/store/tenants.js'
import { createUser } from '../../src/gateway/people/users.js'
import { http, startTestBroker, type TestBroker } from '../support/broker.js'
import { startTestGateway, type TestGateway } from '../support/gateway.js'
import {
  closeBrowser,
  expectText,
  launchBrowser,
  offLoopback,
  openPage,
  unexpectedErrors,
} from '../dashboard/browser.js'

const PASSWORD = 'dashboard password'

describe('the dashboard behind the gateway, signed in with a password', () => {
  let browser: Browser
  let broker: TestBroker
  let gateway: TestGateway

  beforeAll(async () => {
    browser = await launchBrowser()
    broker = await startTestBroker({ label: 'gw_people_ui', config: { tenancy: { header: 'X-Queen-Tenant' } } })
    gateway = await startTestGateway({ upstreams: [broker.url], label: 'gw_people_ui' })
    for (const tenant of ['acme', 'globex']) {
      await createTenant(gateway.db, tenant)
      const { key } = await createApiKey(gateway.db, { tenant, role: 'read-write' })
      const pushed = await http(
        gateway,
        'POST',
        '/api/v1/push',
        { items: [{ queue: `${tenant}-browser`, payload: { tenant } }] },
        { authorization: `Bearer ${key}` },
      )
      expect(pushed.status).toBe(200)
    }
    await broker.services.observability.statsJob.runOnce()
    await createUser(gateway.db, { name: 'alice', tenant: 'acme', role: 'read-write', password: PASSWORD })
  }, 60_000)
  afterAll(async () => {
    await closeBrowser(browser)
    await gateway?.close()
    await broker?.close()
  })

  it('signs in on the sign-in page and lands on the dashboard with a session of her tenant only', async () => {
    const { page, context, requests, errors } = await openPage(browser)
    await page.goto(`${gateway.url}/queues`)
    await expectText(page, 'This broker requires a token')

    await page.goto(`${gateway.url}/proxy/login?rd=${encodeURIComponent('/queues')}`)
    await page.getByLabel('User name').fill('alice')
    await page.getByLabel('Password').fill('not it')
    await page.getByRole('button', { name: 'Sign in' }).click()
    await expectText(page, 'Invalid username or password')
    expect(await context.cookies()).toEqual([])

    await page.getByLabel('Password').fill(PASSWORD)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.waitForURL(`${gateway.url}/queues`)
    await expectText(page, 'acme-browser')
    expect(await page.getByText('globex-browser').count()).toBe(0)

    const cookies = await context.cookies()
    expect(cookies).toEqual([
      expect.objectContaining({ name: 'queen_session', httpOnly: true, sameSite: 'Lax', secure: false, path: '/' }),
    ])
    expect(await page.evaluate<string>('document.cookie')).not.toContain('queen_session')
    // The dashboard holds no token of its own: the cookie alone signs its requests.
    expect(await page.evaluate<string | null>("sessionStorage.getItem('queen.token')")).toBeNull()
    const me = await page.evaluate<any>("fetch('/api/me').then((answer) => answer.json())")
    expect(me.user).toMatchObject({ name: 'alice', tenant: 'acme', role: 'read-write' })

    await page.evaluate("fetch('/api/logout', { method: 'POST' })")
    expect(await context.cookies()).toEqual([])
    await page.reload()
    await expectText(page, 'This broker requires a token')
    expect(offLoopback(requests)).toEqual([])
    expect(unexpectedErrors(errors)).toEqual([])
    await context.close()
  })
})
