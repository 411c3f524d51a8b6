/**
 * The queues grid's additions and the queue page (docs/dashboard.md, "What it shows") in a real Chromium
 * against a live broker with traffic through the public JavaScript client: the grid sorts by lag and by
 * density, draws a push sparkline per queue from requests that do not grow with the queues, and deletes a
 * queue; the queue page shows counts, rates, its groups and links, edits the configuration merge-safely with
 * a diff (the other options kept, a concurrent change caught, a bad value refused by the broker) and deletes
 * the queue; every change is read back through the API. Keyboard, 375 px, axe-core, screenshots, loopback.
 */
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { http, type TestBroker } from '../support/broker.js'
import {
  expectText,
  type openPage,
  screenshot,
  startDashboardSession,
  tileValue,
  type DashboardSession,
} from './browser.js'
import { describeEveryPageChecks, type CheckedPage } from './page-checks.js'
import { confirmDialog, tableRows } from './page-parts.js'
import { consume, pushTo } from './traffic.js'

let session: DashboardSession
let broker: TestBroker

/** qd-orders' options before the tests edit them: three away from their defaults. */
const ORDERS_OPTIONS = { leaseTime: 120, retryLimit: 7, deadLetterQueue: true }

function open(target: string, options: Parameters<typeof openPage>[1] = {}): Promise<Page> {
  return session.open(target, options)
}

async function storedOptions(queue: string): Promise<Record<string, unknown>> {
  const answer = await http(broker, 'GET', `/api/v1/resources/queues/${queue}`)
  expect(answer.status).toBe(200)
  return answer.body.options
}

async function names(page: Page): Promise<string[]> {
  return (await tableRows(page)).map((row) => row.split(' | ')[0] ?? '')
}

beforeAll(async () => {
  session = await startDashboardSession({ label: 'dashboard_queue_detail' })
  broker = session.broker
  const { queen } = session
  const configured = await http(broker, 'POST', '/api/v1/configure', { queue: 'qd-orders', options: ORDERS_OPTIONS })
  expect(configured.status).toBe(200)
  // qd-orders: p1 and p2 (and the Default partition configure made), 12 messages, 4 consumed in queue mode (8 unsettled: the only lag);
  // qd-audit: 4 partitions, 1 message each; qd-emails: 1 partition, 3 messages; qd-trash and qd-doomed to delete.
  await pushTo(queen, 'qd-orders', ['p1', 'p2'], 6)
  await pushTo(queen, 'qd-audit', ['a1', 'a2', 'a3', 'a4'], 1)
  await pushTo(queen, 'qd-emails', ['Default'], 3)
  await pushTo(queen, 'qd-trash', ['Default'], 1)
  await pushTo(queen, 'qd-doomed', ['Default'], 1)
  await consume(queen, 'qd-orders', undefined, 4)
  await broker.services.observability.metricsJob.runOnce()
  await broker.services.observability.statsJob.runOnce()
  // Lag is counted in whole seconds: let the oldest unsettled message reach one.
  await new Promise((resolve) => setTimeout(resolve, 1100))
})
afterAll(async () => {
  await session?.close()
})

describe('the queues grid', () => {
  it('sorts by lag and by density, through the URL', async () => {
    const page = await open('/queues')
    await expect.poll(() => names(page)).toEqual(['qd-audit', 'qd-doomed', 'qd-emails', 'qd-orders', 'qd-trash'])
    await page.getByRole('button', { name: 'Lag', exact: true }).click()
    await expect.poll(() => new URL(page.url()).search).toBe('?sort=lag')
    // Only qd-orders has a message a group (queue mode) has not settled; the others tie at none, by name.
    await expect.poll(() => names(page)).toEqual(['qd-orders', 'qd-audit', 'qd-doomed', 'qd-emails', 'qd-trash'])
    const orders = (await tableRows(page)).find((row) => row.startsWith('qd-orders'))?.split(' | ')
    // Name | Pending | Total | Partitions | Lag | Density
    expect(orders?.slice(0, 4)).toEqual(['qd-orders', '8', '12', '3'])
    expect(orders?.[4]).toMatch(/^\d+ s$/)
    expect(orders?.[5]).toBe('4')

    // Density: messages per partition. qd-orders 12/3 (configure made its Default partition), qd-emails 3/1, the rest 1.
    const deep = await open('/queues?sort=density&dir=desc')
    await expect.poll(() => names(deep)).toEqual(['qd-orders', 'qd-emails', 'qd-audit', 'qd-doomed', 'qd-trash'])
    expect(await deep.locator('th[aria-sort="descending"]').innerText()).toMatch(/^Density/)
  })

  it('draws a push sparkline per queue, from requests that do not grow with the queues', async () => {
    const page = await open('/queues')
    const spark = page.getByRole('img', { name: 'qd-orders: 12 pushed in the last hour, per minute' })
    await spark.waitFor()
    expect(await spark.locator('polyline').count()).toBe(1)
    await page.getByRole('img', { name: 'qd-audit: 4 pushed in the last hour, per minute' }).waitFor()
    await screenshot(page, 'queues-grid')
    const recorded = session.opened.at(-1)!
    recorded.requests.length = 0
    await page.waitForTimeout(4500)
    const api = recorded.requests.map((url) => new URL(url).pathname).filter((p) => p.startsWith('/api/'))
    expect(api.length).toBeGreaterThan(0)
    // The listing and the groups every tick; the per-minute series of every queue at most every 30 s.
    const allowed = ['/api/v1/resources/queues', '/api/v1/consumer-groups', '/api/v1/analytics/queue-ops']
    expect(api.filter((p) => !allowed.includes(p))).toEqual([])
    expect(api.filter((p) => p === '/api/v1/analytics/queue-ops').length).toBeLessThanOrEqual(1)
  })

  it('deletes a queue from its row after asking', async () => {
    const page = await open('/queues')
    await page.getByRole('button', { name: 'Delete queue qd-trash' }).click()
    const dialog = page.getByRole('dialog', { name: 'Delete queue qd-trash?' })
    await dialog.getByRole('button', { name: 'Cancel' }).click()
    expect((await http(broker, 'GET', '/api/v1/resources/queues/qd-trash')).status).toBe(200)
    await page.getByRole('button', { name: 'Delete queue qd-trash' }).click()
    await confirmDialog(page, 'Delete queue qd-trash?', 'Delete queue')
    expect((await http(broker, 'GET', '/api/v1/resources/queues/qd-trash')).status).toBe(404)
    await expect.poll(() => names(page)).toEqual(['qd-audit', 'qd-doomed', 'qd-emails', 'qd-orders'])
  })

  it('sorts by density with the keyboard alone', async () => {
    const page = await open('/queues')
    await expect.poll(() => names(page)).toContain('qd-orders')
    const focused = () => page.evaluate<string>("document.activeElement?.textContent?.trim() ?? ''")
    for (let presses = 0; !(await focused()).startsWith('Density'); presses++) {
      if (presses > 30) expect.fail('Tab never reached the Density column')
      await page.keyboard.press('Tab')
    }
    await page.keyboard.press('Enter')
    await expect.poll(() => new URL(page.url()).search).toBe('?sort=density')
    await expect.poll(() => names(page)).toEqual(['qd-orders', 'qd-emails', 'qd-audit', 'qd-doomed'])
  })
})

describe('the queue page', () => {
  it('shows the counts, the rates, the groups and the links to messages, traces and dead letters', async () => {
    const page = await open('/queues/qd-orders')
    await expect.poll(() => page.title()).toBe('Queue qd-orders · Queen')
    await expect.poll(() => tileValue(page, 'Total')).toBe('12')
    expect(await tileValue(page, 'Pending')).toBe('8')
    expect(await tileValue(page, 'Completed')).toBe('4')
    // 12 pushes and 4 pops and acks in the last hour.
    expect(await tileValue(page, 'push')).toBe('12 · 0.2/min')
    expect(await tileValue(page, 'ack')).toBe('4 · 4/h')
    await expectText(page, /^queue mode: 8 unsettled, the oldest \d+ (s|min \d+ s) old · Stable$/)
    for (const [name, href] of [
      ['Messages', '/messages?queue=qd-orders'],
      ['Traces (all queues)', '/traces'],
      ['Dead letters', '/dlq?queue=qd-orders'],
    ]) {
      const links = page.getByRole('navigation', { name: 'More about qd-orders' })
      expect(await links.getByRole('link', { name, exact: true }).getAttribute('href')).toBe(href)
    }
    const config = page.locator('.config-list')
    expect(await config.innerText()).toMatch(/Lease time\s+120 s/)
    expect(await config.innerText()).toMatch(/Retry limit\s+7/)
    await screenshot(page, 'queue-detail')
  })

  it('edits the configuration with a diff, keeping every other option', async () => {
    const before = await storedOptions('qd-orders')
    expect(before).toMatchObject(ORDERS_OPTIONS)
    const page = await open('/queues/qd-orders')
    await page.getByRole('button', { name: 'Edit configuration' }).click()
    await page.getByLabel('Retry limit').fill('9')
    await page.getByLabel('Retention (s)', { exact: true }).fill('3600')
    await page.getByRole('button', { name: 'Review changes' }).click()
    const dialog = page.getByRole('dialog', { name: 'Save the configuration of qd-orders?' })
    await dialog.waitFor()
    // A retention period turns retention on, as `queenctl queue configure` does, and says so.
    const diff = await dialog.locator('tbody tr').allInnerTexts()
    expect(diff.map((row) => row.split('\t').map((cell) => cell.trim()))).toEqual([
      ['Retry limit', '7', '9'],
      ['Retention enabled', 'off', 'on'],
      ['Retention', '0 s', '3600 s'],
    ])
    await expectText(page, 'Retention enabled is turned on')
    await screenshot(page, 'queue-config-diff')
    await dialog.getByRole('button', { name: 'Save', exact: true }).click()
    await dialog.waitFor({ state: 'hidden' })
    await expectText(page, 'Saved: Retry limit, Retention enabled, Retention.')
    expect(await storedOptions('qd-orders')).toEqual({
      ...before,
      retryLimit: 9,
      retentionEnabled: true,
      retentionSeconds: 3600,
    })
    await expect.poll(() => page.locator('.config-list').innerText()).toMatch(/Retry limit\s+9/)
  })

  it('refuses to save over a change made since the review, and keeps that change', async () => {
    const page = await open('/queues/qd-orders')
    await page.getByRole('button', { name: 'Edit configuration' }).click()
    await page.getByLabel('Lease time (s)').fill('90')
    await page.getByRole('button', { name: 'Review changes' }).click()
    const dialog = page.getByRole('dialog', { name: 'Save the configuration of qd-orders?' })
    await dialog.waitFor()
    // Someone else sets the priority in the meantime (a full configure, as the API takes it).
    const stored = await storedOptions('qd-orders')
    expect(
      (await http(broker, 'POST', '/api/v1/configure', { queue: 'qd-orders', options: { ...stored, priority: 5 } }))
        .status,
    ).toBe(200)
    await dialog.getByRole('button', { name: 'Save', exact: true }).click()
    await expect
      .poll(() => dialog.getByRole('alert').innerText())
      .toBe('The configuration changed on the broker since this review: cancel and review again.')
    expect((await storedOptions('qd-orders')).leaseTime).toBe(120)
    await dialog.getByRole('button', { name: 'Cancel' }).click()
    await page.getByRole('button', { name: 'Review changes' }).click()
    await dialog.waitFor()
    expect(
      (await dialog.locator('tbody tr').allInnerTexts()).map((row) => row.split('\t').map((c) => c.trim())),
    ).toEqual([['Lease time', '120 s', '90 s']])
    await dialog.getByRole('button', { name: 'Save', exact: true }).click()
    await dialog.waitFor({ state: 'hidden' })
    expect(await storedOptions('qd-orders')).toEqual({ ...stored, priority: 5, leaseTime: 90 })
  })

  it('shows the broker’s refusal of a bad value and changes nothing', async () => {
    const before = await storedOptions('qd-orders')
    const page = await open('/queues/qd-orders')
    await page.getByRole('button', { name: 'Edit configuration' }).click()
    await page.getByLabel('Lease time (s)').fill('soon')
    await page.getByRole('button', { name: 'Review changes' }).click()
    const dialog = page.getByRole('dialog', { name: 'Save the configuration of qd-orders?' })
    await dialog.getByRole('button', { name: 'Save', exact: true }).click()
    await expect.poll(() => dialog.getByRole('alert').innerText()).toMatch(/^options\.leaseTime: /)
    await dialog.getByRole('button', { name: 'Cancel' }).click()
    await page.getByLabel('Lease time (s)').fill('0')
    await page.getByRole('button', { name: 'Review changes' }).click()
    await dialog.getByRole('button', { name: 'Save', exact: true }).click()
    await expect.poll(() => dialog.getByRole('alert').innerText()).toMatch(/^options\.leaseTime: /)
    expect(await storedOptions('qd-orders')).toEqual(before)
  })

  it('edits the configuration with the keyboard alone', async () => {
    const page = await open('/queues/qd-orders')
    await expectText(page, 'Edit configuration')
    const focused = () =>
      page.evaluate<string>("document.activeElement?.textContent?.trim() || document.activeElement?.id || ''")
    const tabTo = async (target: string) => {
      for (let presses = 0; (await focused()) !== target; presses++) {
        if (presses > 60) expect.fail(`Tab never reached "${target}"`)
        await page.keyboard.press('Tab')
      }
    }
    await tabTo('Edit configuration')
    await page.keyboard.press('Enter')
    await tabTo('option-priority')
    await page.keyboard.press('ControlOrMeta+A')
    await page.keyboard.type('6')
    await tabTo('Review changes')
    await page.keyboard.press('Enter')
    await page.getByRole('dialog', { name: 'Save the configuration of qd-orders?' }).waitFor()
    await tabTo('Save')
    await page.keyboard.press('Enter')
    await expectText(page, 'Saved: Priority.')
    expect((await storedOptions('qd-orders')).priority).toBe(6)
  })

  it('deletes the queue after asking, back on the grid', async () => {
    const page = await open('/queues/qd-doomed')
    await expectText(page, 'Partitions (1)')
    await page.getByRole('button', { name: 'Delete queue' }).click()
    await confirmDialog(page, 'Delete queue qd-doomed?', 'Delete queue')
    await expect.poll(() => new URL(page.url()).pathname).toBe('/queues')
    expect((await http(broker, 'GET', '/api/v1/resources/queues/qd-doomed')).status).toBe(404)
    await expect.poll(() => names(page)).toEqual(['qd-audit', 'qd-emails', 'qd-orders'])
  })
})

const PAGES: CheckedPage[] = [
  ['queues-grid', '/queues?sort=lag', 'qd-orders'],
  ['queue-detail', '/queues/qd-orders', 'Partitions (3)'],
]

// The bad values it typed were refused with a 400, logged as console errors.
describeEveryPageChecks(() => session, PAGES, {
  allowedErrors: /status of 400/,
  // The configuration form is checked open.
  async prepare(name, page) {
    if (name !== 'queue-detail') return
    await page.getByRole('button', { name: 'Edit configuration' }).click()
    await page.getByRole('button', { name: 'Review changes' }).waitFor()
  },
})
