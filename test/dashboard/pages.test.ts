/**
 * The web dashboard in a real Chromium (test/dashboard/browser.ts) against a live broker with traffic pushed,
 * popped and acked through the public JavaScript client: the overview shows the queues and counts and
 * refreshes live (and not while paused, and with no request per queue); the queues grid lists and sorts,
 * and a deep link opens it sorted; a queue's page; the maintenance toggles change the broker's state; the
 * keyboard alone reaches and sorts the grid; a 375-px screen does not scroll sideways; axe-core finds
 * nothing serious in either theme; and no request leaves loopback. Screenshots go to test-results/dashboard/.
 */
import { copyFile, mkdir } from 'node:fs/promises'
import path from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { http, type TestBroker } from '../support/broker.js'
import { REPO_ROOT } from '../support/cli-harness.js'
import {
  expectText,
  offLoopback,
  openPage,
  screenshot,
  scrollsSideways,
  seriousAccessibilityFindings,
  startDashboardSession,
  tileValue,
  unexpectedErrors,
  type DashboardSession,
} from './browser.js'

let session: DashboardSession
let broker: TestBroker
let queen: any

function open(target: string, options: Parameters<typeof openPage>[1] = {}): Promise<Page> {
  return session.open(target, options)
}

/** Pushes `count` messages per partition through the client. */
async function pushTo(queue: string, partitions: string[], count: number): Promise<void> {
  for (const partition of partitions) {
    const results = await queen
      .queue(queue)
      .partition(partition)
      .push(Array.from({ length: count }, (_, n) => ({ data: { n } })))
    expect(results.map((r: any) => r.status)).toEqual(Array(count).fill('queued'))
  }
}

/** Pops `count` messages of a queue through the client and acks them. */
async function popAndAck(queue: string, count: number): Promise<void> {
  let acked = 0
  while (acked < count) {
    const messages = await queen
      .queue(queue)
      .batch(count - acked)
      .wait(false)
      .pop()
    expect(messages.length).toBeGreaterThan(0)
    for (const message of messages) await queen.ack(message, true)
    acked += messages.length
  }
}

/** The stats snapshot and the per-minute metrics, now (a test broker runs no background jobs). */
async function refreshCounters(): Promise<void> {
  await broker.services.observability.metricsJob.runOnce()
  await broker.services.observability.statsJob.runOnce()
}

async function firstColumn(page: Page): Promise<string[]> {
  // The first table of the page: the overview's top queues (its groups by lag follow it).
  return page.locator('main table.data').first().locator('tbody tr td:first-child').allInnerTexts()
}

async function waitForOrder(page: Page, expected: string[]): Promise<void> {
  await expect
    .poll(() => firstColumn(page), { timeout: 10_000, message: 'the order of the queues grid' })
    .toEqual(expected)
}

beforeAll(async () => {
  session = await startDashboardSession({ label: 'dashboard_pages' })
  ;({ broker, queen } = session)
  // orders: 2 partitions, 12 messages, 4 completed (8 pending); audit: 4 partitions, 4 pending; emails: 1, 3.
  await pushTo('dash-orders', ['p1', 'p2'], 6)
  await pushTo('dash-audit', ['a1', 'a2', 'a3', 'a4'], 1)
  await pushTo('dash-emails', ['Default'], 3)
  await popAndAck('dash-orders', 4)
  await refreshCounters()
})
afterAll(async () => {
  await session?.close()
})

describe('the overview', () => {
  it('shows the totals, the throughput chart and the top queues by pending', async () => {
    const page = await open('/')
    await expect.poll(() => page.title()).toBe('Overview · Queen')
    await expectText(page, 'Top queues by pending')
    await expect.poll(() => tileValue(page, 'Total')).toBe('19')
    expect(await tileValue(page, 'Pending')).toBe('15')
    expect(await tileValue(page, 'Completed')).toBe('4')
    expect(await tileValue(page, 'Queues')).toBe('3')
    expect(await firstColumn(page)).toEqual(['dash-orders', 'dash-audit', 'dash-emails'])
    expect(await page.locator('main table.data tbody tr').first().locator('td').nth(1).innerText()).toBe('8')
    // The throughput chart (the first; the pop lag's follows) drew the window's buckets: one canvas,
    // labelled with the latest rates.
    expect(await page.locator('.chart').first().locator('canvas').count()).toBe(1)
    expect(await page.locator('.chart').first().getAttribute('aria-label')).toMatch(
      /^Push, pop and ack rates per 1-minute bucket over the last 1h; latest: push/,
    )
    await expectText(page, /health(y)? · test-broker · v/)
    const file = await screenshot(page, 'overview')
    // The README's screenshot is refreshed on request only, so a test run leaves the checkout unchanged.
    if (process.env.QUEEN_UPDATE_SCREENSHOTS === '1') {
      await mkdir(path.join(REPO_ROOT, 'docs/images'), { recursive: true })
      await copyFile(file, path.join(REPO_ROOT, 'docs/images/dashboard-overview.png'))
    }
  })

  it('switches the window through the URL', async () => {
    const page = await open('/')
    await page.getByRole('link', { name: '6h', exact: true }).click()
    await expect.poll(() => new URL(page.url()).search).toBe('?window=6h')
    await expectText(page, 'Throughput, last 6h')
    await page.goBack()
    await expectText(page, 'Throughput, last 1h')
    const deep = await open('/?window=24h')
    await expectText(deep, 'Throughput, last 24h')
    expect(await deep.locator('[aria-current="true"]').innerText()).toBe('24h')
  })

  it('refreshes about every 2 s with one request per route, none per queue, and not while paused', async () => {
    const recorded = await openPage(session.browser)
    session.opened.push(recorded)
    const { page, requests } = recorded
    await page.goto(`${broker.url}/`)
    const total = () => tileValue(page, 'Total')
    await expect.poll(() => total()).toBe('19')
    await pushTo('dash-orders', ['p1'], 1)
    await refreshCounters()
    await expect.poll(() => total(), { timeout: 6000 }).toBe('20')
    requests.length = 0
    await page.waitForTimeout(6500)
    const api = requests.map((url) => new URL(url).pathname).filter((p) => p.startsWith('/api/'))
    const status = api.filter((p) => p === '/api/v1/status').length
    // About 2 s apart, 2 s after each answer: 2 to 4 overview ticks in 6.5 s, each one request per overview
    // route (status, the bounded leaders, retention, the replicas' metrics), none per queue.
    expect(status, api.join('\n')).toBeGreaterThanOrEqual(2)
    expect(status, api.join('\n')).toBeLessThanOrEqual(4)
    const others = ['/api/v1/status/top', '/api/v1/analytics/retention', '/api/v1/analytics/system-metrics']
    for (const route of others) {
      expect(Math.abs(api.filter((p) => p === route).length - status), route).toBeLessThanOrEqual(1)
    }
    expect(api.filter((p) => p !== '/api/v1/status' && !others.includes(p))).toEqual([])

    await page.getByRole('button', { name: 'Pause updates' }).click()
    await page.getByRole('button', { name: 'Resume updates' }).waitFor()
    requests.length = 0
    await pushTo('dash-orders', ['p2'], 1)
    await refreshCounters()
    await page.waitForTimeout(4500)
    expect(requests.filter((url) => new URL(url).pathname.startsWith('/api/'))).toEqual([])
    expect(await total()).toBe('20')
    await page.getByRole('button', { name: 'Resume updates' }).click()
    await expect.poll(() => total(), { timeout: 6000 }).toBe('21')
  })
})

describe('the queues grid', () => {
  it('lists the queues by name, sorts by a column and links a row to its queue', async () => {
    const page = await open('/queues')
    await waitForOrder(page, ['dash-audit', 'dash-emails', 'dash-orders'])
    await page.getByRole('button', { name: 'Pending' }).click()
    await expect.poll(() => new URL(page.url()).search).toBe('?sort=pending')
    await waitForOrder(page, ['dash-orders', 'dash-audit', 'dash-emails'])
    expect(await page.locator('th[aria-sort="descending"]').innerText()).toMatch(/^Pending/)
    await page.getByRole('button', { name: 'Pending' }).click()
    await expect.poll(() => new URL(page.url()).search).toBe('?sort=pending&dir=asc')
    await waitForOrder(page, ['dash-emails', 'dash-audit', 'dash-orders'])
    await screenshot(page, 'queues')

    await page.getByRole('link', { name: 'dash-orders' }).click()
    await expect.poll(() => new URL(page.url()).pathname).toBe('/queues/dash-orders')
    await expectText(page, 'Queue dash-orders')
    await expect.poll(() => firstColumn(page)).toEqual(['p1', 'p2'])
    await screenshot(page, 'queue')
  })

  it('opens sorted from a deep link, and filters by name through the URL', async () => {
    const page = await open('/queues?sort=partitions&dir=desc')
    await waitForOrder(page, ['dash-audit', 'dash-orders', 'dash-emails'])
    expect(await page.locator('th[aria-sort="descending"]').innerText()).toMatch(/^Partitions/)
    await page.getByLabel('Filter by name').fill('mail')
    await waitForOrder(page, ['dash-emails'])
    expect(new URL(page.url()).searchParams.get('q')).toBe('mail')
    const deep = await open('/queues?q=ord')
    await waitForOrder(deep, ['dash-orders'])
  })

  it("the header's search opens the grid filtered by what was typed, from any page", async () => {
    const page = await open('/queues/dash-audit')
    await expectText(page, 'Queue dash-audit')
    await page.getByRole('searchbox', { name: 'Search queues' }).fill('emai')
    await page.getByRole('searchbox', { name: 'Search queues' }).press('Enter')
    await expect.poll(() => new URL(page.url()).pathname + new URL(page.url()).search).toBe('/queues?q=emai')
    await waitForOrder(page, ['dash-emails'])
    expect(await page.getByLabel('Filter by name').inputValue()).toBe('emai')
  })

  it('is reached and sorted with the keyboard alone, focus visible', async () => {
    const page = await open('/')
    await expectText(page, 'Top queues by pending')
    const focused = () => page.evaluate<string>("document.activeElement?.textContent?.trim() ?? ''")
    const tabTo = async (name: string) => {
      for (let presses = 0; presses < 30; presses++) {
        await page.keyboard.press('Tab')
        if ((await focused()).startsWith(name)) return
      }
      expect.fail(`Tab never reached "${name}"`)
    }
    await tabTo('Queues')
    const outline = await page.evaluate<string>('getComputedStyle(document.activeElement).outlineStyle')
    expect(outline).not.toBe('none')
    await page.keyboard.press('Enter')
    await expect.poll(() => new URL(page.url()).pathname).toBe('/queues')
    await waitForOrder(page, ['dash-audit', 'dash-emails', 'dash-orders'])
    await tabTo('Pending')
    await page.keyboard.press('Enter')
    await waitForOrder(page, ['dash-orders', 'dash-audit', 'dash-emails'])
  })
})

describe('maintenance', () => {
  async function flags() {
    const answer = await http(broker, 'GET', '/api/v1/system/maintenance')
    expect(answer.status).toBe(200)
    return { push: answer.body.maintenanceMode, pop: answer.body.popMaintenanceMode }
  }

  it('each toggle asks first, changes the broker, and shows a banner while on', async () => {
    const page = await open('/')
    await page.getByRole('button', { name: 'Turn push maintenance on' }).click()
    const dialog = page.getByRole('dialog', { name: 'Turn push maintenance on?' })
    await dialog.waitFor()
    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'hidden' })
    expect(await flags()).toEqual({ push: false, pop: false })

    await page.getByRole('button', { name: 'Turn push maintenance on' }).click()
    await dialog.getByRole('button', { name: 'Turn on' }).click()
    await expectText(page, 'Push maintenance is on:')
    expect(await flags()).toEqual({ push: true, pop: false })

    await page.getByRole('button', { name: 'Turn pop maintenance on' }).click()
    await page
      .getByRole('dialog', { name: 'Turn pop maintenance on?' })
      .getByRole('button', { name: 'Turn on' })
      .click()
    await expectText(page, 'Pop maintenance is on:')
    expect(await flags()).toEqual({ push: true, pop: true })
    await screenshot(page, 'maintenance')

    await page.getByRole('button', { name: 'Turn push maintenance off' }).click()
    await page
      .getByRole('dialog', { name: 'Turn push maintenance off?' })
      .getByRole('button', { name: 'Turn off' })
      .click()
    await page.getByRole('button', { name: 'Turn pop maintenance off' }).click()
    await page
      .getByRole('dialog', { name: 'Turn pop maintenance off?' })
      .getByRole('button', { name: 'Turn off' })
      .click()
    await page.getByRole('button', { name: 'Turn pop maintenance on' }).waitFor()
    expect(await flags()).toEqual({ push: false, pop: false })
    expect(await page.locator('.banner').count()).toBe(0)
  })
})

const PAGES = [
  ['overview', '/', 'Top queues by pending'],
  ['queues', '/queues', 'dash-orders'],
  ['queue', '/queues/dash-orders', 'Partitions (2)'],
] as const

describe('on a phone', () => {
  it.each(PAGES)('the %s page fits 375 px without scrolling sideways', async (name, target, text) => {
    const page = await open(target, { width: 375, height: 800 })
    await expectText(page, text)
    expect(await scrollsSideways(page)).toBe(false)
    await screenshot(page, `${name}-375px`)
  })
})

describe('accessibility', () => {
  for (const theme of ['light', 'dark'] as const) {
    it.each(PAGES)(
      `the %s page has no serious or critical axe findings in the ${theme} theme`,
      async (name, target, text) => {
        const page = await open(target, { colorScheme: theme })
        await expectText(page, text)
        expect(await page.evaluate<string>('getComputedStyle(document.documentElement).colorScheme')).toBe(theme)
        expect(await seriousAccessibilityFindings(page)).toEqual([])
        if (theme === 'dark') await screenshot(page, `${name}-dark`)
      },
    )
  }

  it('the theme toggle overrides the system preference and is remembered', async () => {
    const page = await open('/', { colorScheme: 'light' })
    await expectText(page, 'Top queues by pending')
    const background = () => page.evaluate<string>('getComputedStyle(document.documentElement).backgroundColor')
    const light = await background()
    await page.getByRole('button', { name: 'Dark theme' }).click()
    await expect.poll(background).not.toBe(light)
    expect(await page.evaluate<string | undefined>('document.documentElement.dataset.theme')).toBe('dark')
    await page.reload()
    await page.getByRole('button', { name: 'Light theme' }).waitFor()
    expect(await background()).not.toBe(light)
  })
})

describe('what the browser did', () => {
  it('sent no request off loopback and logged no error', () => {
    const opened = session.opened
    expect(opened.length).toBeGreaterThan(10)
    const all = opened.flatMap((recorded) => recorded.requests)
    expect(all.length).toBeGreaterThan(50)
    expect(offLoopback(all)).toEqual([])
    expect(opened.flatMap((recorded) => unexpectedErrors(recorded.errors))).toEqual([])
  })
})
