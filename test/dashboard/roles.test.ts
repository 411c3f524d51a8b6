/**
 * What each role is offered on the queue and consumer-group pages (docs/dashboard.md, "Security"), with JWT
 * on, in a real Chromium against a broker with traffic: a read-only token sees the data and no action that
 * changes anything; a read-write token also the seeks and the configuration edit (write routes) but no
 * delete (admin routes); an admin token every action.
 */
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { hsToken, SECRET } from '../broker/auth/tokens.js'
import { expectText, offLoopback, screenshot, startDashboardSession, type DashboardSession } from './browser.js'
import { consume, pushTo } from './traffic.js'

let session: DashboardSession

/** A page signed in with a token of `role`, on `target`. */
async function signedIn(role: string, target: string): Promise<Page> {
  const page = await session.open(target)
  await page.getByLabel('Bearer token').fill(await hsToken({ sub: `a-${role}`, role }))
  await page.getByRole('button', { name: 'Sign in' }).click()
  return page
}

/** The actions that change the broker's state that the page offers: visible buttons (not a closed dialog's), by name. */
async function offeredActions(page: Page): Promise<string[]> {
  const names = await page
    .locator('main button:visible')
    .evaluateAll((buttons: any[]) =>
      buttons.map((button): string => (button.getAttribute('aria-label') ?? button.textContent ?? '').trim()),
    )
  return names.filter((name) => /^(Delete|Seek|Edit configuration)/.test(name)).sort()
}

/** Goes to `target` in the same tab (the token stays in its sessionStorage) and waits for `text`. */
async function visit(page: Page, target: string, text: string): Promise<void> {
  await page.goto(`${session.broker.url}${target}`)
  await expectText(page, text)
}

beforeAll(async () => {
  session = await startDashboardSession(
    { label: 'dashboard_roles', config: { auth: { enabled: true, secret: SECRET } } },
    { bearerToken: await hsToken({ sub: 'app', role: 'read-write' }) },
  )
  await pushTo(session.queen, 'ro-orders', ['p1'], 2)
  await consume(session.queen, 'ro-orders', 'ro-billing', 1)
  await session.broker.services.observability.statsJob.runOnce()
})
afterAll(async () => {
  await session?.close()
})

describe('with JWT on', () => {
  it('a read-only token sees the queues, the configuration and the group, and no action', async () => {
    const page = await signedIn('read-only', '/queues')
    await expectText(page, 'ro-orders')
    await expectText(page, 'Signed in as read-only')
    expect(await offeredActions(page)).toEqual([])
    await visit(page, '/queues/ro-orders', 'Lease time')
    await expectText(page, 'Partitions (1)')
    expect(await offeredActions(page)).toEqual([])
    await screenshot(page, 'queue-read-only')
    await visit(page, '/consumer-groups/ro-billing', 'On queue ro-orders')
    expect(await page.locator('main table.data tbody tr').count()).toBe(1)
    expect(await offeredActions(page)).toEqual([])
    expect(await page.getByLabel('Seek ro-orders to time').count()).toBe(0)
  })

  it('a read-write token also seeks and edits the configuration, and deletes nothing', async () => {
    const page = await signedIn('read-write', '/queues')
    await expectText(page, 'ro-orders')
    expect(await offeredActions(page)).toEqual([])
    await visit(page, '/queues/ro-orders', 'Partitions (1)')
    expect(await offeredActions(page)).toEqual(['Edit configuration'])
    await visit(page, '/consumer-groups/ro-billing', 'On queue ro-orders')
    expect(await offeredActions(page)).toEqual(['Seek p1 to end', 'Seek ro-orders to end', 'Seek to time'])
  })

  it('an admin token is offered every action', async () => {
    const page = await signedIn('admin', '/queues')
    await expectText(page, 'ro-orders')
    expect(await offeredActions(page)).toEqual(['Delete queue ro-orders'])
    await visit(page, '/queues/ro-orders', 'Partitions (1)')
    expect(await offeredActions(page)).toEqual(['Delete queue', 'Edit configuration'])
    await visit(page, '/consumer-groups/ro-billing', 'On queue ro-orders')
    expect(await offeredActions(page)).toEqual([
      'Delete group',
      'Seek p1 to end',
      'Seek ro-orders to end',
      'Seek to time',
    ])
  })

  it('sent no request off loopback', () => {
    expect(offLoopback(session.opened.flatMap((recorded) => recorded.requests))).toEqual([])
  })
})
