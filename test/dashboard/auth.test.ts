/**
 * The dashboard with JWT on (docs/dashboard.md, "Security"), in a real Chromium against a broker with traffic:
 * no token brings the sign-in form; a good token shows the data and is kept for the tab; a bad one brings
 * the form back with the broker's reason; a read-only token sees the data and the maintenance banner but no
 * toggle; a token whose role reaches no route is told which role it needs.
 */
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { http } from '../support/broker.js'
import { hsToken, SECRET } from '../broker/auth/tokens.js'
import {
  expectText,
  offLoopback,
  screenshot,
  seriousAccessibilityFindings,
  startDashboardSession,
  tileValue,
  type DashboardSession,
} from './browser.js'

let session: DashboardSession
let admin: string

function open(target: string): Promise<Page> {
  return session.open(target)
}

/** Sets pop-maintenance as the admin, through the API. */
async function setPopMaintenance(enabled: boolean): Promise<void> {
  const answer = await http(
    session.broker,
    'POST',
    '/api/v1/system/maintenance/pop',
    { enabled },
    {
      authorization: `Bearer ${admin}`,
    },
  )
  expect(answer.status).toBe(200)
}

async function signIn(page: Page, token: string): Promise<void> {
  await page.getByLabel('Bearer token').fill(token)
  await page.getByRole('button', { name: 'Sign in' }).click()
}

beforeAll(async () => {
  admin = await hsToken({ sub: 'ops', role: 'admin' })
  session = await startDashboardSession(
    { label: 'dashboard_auth', config: { auth: { enabled: true, secret: SECRET } } },
    { bearerToken: await hsToken({ sub: 'app', role: 'read-write' }) },
  )
  const results = await session.queen
    .queue('auth-orders')
    .partition('p1')
    .push([{ data: { n: 1 } }, { data: { n: 2 } }])
  expect(results.map((r: any) => r.status)).toEqual(['queued', 'queued'])
  await session.broker.services.observability.statsJob.runOnce()
})
afterAll(async () => {
  await session?.close()
})

describe('with JWT on', () => {
  it('asks for a token, shows the data with a good one, and keeps it for the tab', async () => {
    const page = await open('/queues')
    await expectText(page, 'This broker requires a token')
    expect(await page.getByRole('button', { name: /maintenance/ }).count()).toBe(0)
    expect(await seriousAccessibilityFindings(page)).toEqual([])
    await screenshot(page, 'sign-in')
    await signIn(page, admin)
    await expectText(page, 'auth-orders')
    await page.getByRole('button', { name: 'Turn push maintenance on' }).waitFor()
    expect(await page.evaluate<string | null>("sessionStorage.getItem('queen.token')")).toBe(admin)
    await page.reload()
    await expectText(page, 'auth-orders')
    expect(await page.getByLabel('Bearer token').count()).toBe(0)
  })

  it('brings the form back with the broker’s reason for a bad token', async () => {
    const page = await open('/')
    await signIn(page, await hsToken({ sub: 'ops', role: 'admin' }, 'another-secret-0123456789abcdef-0123456789'))
    await expectText(page, 'The token was refused: Invalid token signature')
    expect(await page.getByLabel('Bearer token').isVisible()).toBe(true)
    await signIn(page, 'not a token at all')
    await expectText(page, /The token was refused: /)
    await signIn(page, admin)
    await expect.poll(() => tileValue(page, 'Total'), { timeout: 10_000 }).toBe('2')
  })

  it('a read-only token sees the data and the maintenance banner, but no toggle', async () => {
    await setPopMaintenance(true)
    try {
      const page = await open('/')
      await signIn(page, await hsToken({ sub: 'viewer', role: 'read-only' }))
      await expect.poll(() => tileValue(page, 'Total'), { timeout: 10_000 }).toBe('2')
      await expectText(page, 'Pop maintenance is on:')
      await expectText(page, 'Signed in as read-only')
      expect(await page.getByRole('button', { name: /maintenance/ }).count()).toBe(0)
      await screenshot(page, 'read-only')
    } finally {
      await setPopMaintenance(false)
    }
  })

  it('a token whose role reaches no route is told which role it needs', async () => {
    const page = await open('/queues')
    await signIn(page, await hsToken({ sub: 'guest', role: 'auditor' }))
    await expectText(page, "Insufficient permissions: this needs the read-only role (your token's role: auditor)")
  })

  it('sent no request off loopback', () => {
    expect(offLoopback(session.opened.flatMap((recorded) => recorded.requests))).toEqual([])
  })
})
