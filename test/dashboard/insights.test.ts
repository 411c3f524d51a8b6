/**
 * The dashboard's analytics, system, streams and replicas pages and the overview's health figures, in a real
 * Chromium (test/dashboard/browser.ts) against a live broker with traffic from the public JavaScript client
 * (pushes, pops, acks, a parked long-poll, a consumer group and a stream run by the client's Stream SDK):
 * each page shows that traffic, checked by content; its window is in the URL; the keyboard reaches it; it
 * fits 375 px; axe-core finds nothing serious in either theme; no request leaves loopback. The replicas page
 * of a meshed pair is in replicas.test.ts; here the broker runs alone and the page says so.
 * Screenshots go to test-results/dashboard/.
 */
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadClient } from '../compat/client.js'
import { http, type TestBroker } from '../support/broker.js'
import {
  expectText,
  offLoopback,
  screenshot,
  scrollsSideways,
  seriousAccessibilityFindings,
  startDashboardSession,
  unexpectedErrors,
  type DashboardSession,
} from './browser.js'

let session: DashboardSession
let broker: TestBroker
let queen: any

/** The first value of the tile labelled `label` (some tiles add a note below it). */
function tile(page: Page, label: string): Promise<string> {
  return page
    .locator('.tile', { has: page.locator('dt', { hasText: new RegExp(`^${label.replace(/[()]/g, '\\$&')}$`) }) })
    .locator('dd')
    .first()
    .innerText()
}

/** The rows of the table in the section titled `title`, each as its cells' texts. */
async function tableRows(page: Page, title: string): Promise<string[][]> {
  const section = page.locator('section', { has: page.getByRole('heading', { name: title, exact: true }) }).last()
  const rows = await section.locator('table.data tbody tr').all()
  return Promise.all(rows.map((row) => row.locator('td').allInnerTexts()))
}

/** Waits until `check` holds (usable in hooks, unlike expect.poll). */
async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} never happened`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/** The per-minute metrics and the stats snapshot, now (a test broker runs no background jobs). */
async function refreshCounters(): Promise<void> {
  await broker.services.observability.metricsJob.runOnce()
  await broker.services.observability.statsJob.runOnce()
}

beforeAll(async () => {
  session = await startDashboardSession({ label: 'dashboard_insights' })
  ;({ broker, queen } = session)
  // A queue with a namespace and a task, for the analytics page's groupings.
  const configured = await http(broker, 'POST', '/api/v1/configure', {
    queue: 'ins-invoices',
    namespace: 'billing',
    task: 'invoicing',
  })
  expect(configured.status).toBe(200)
  // ins-invoices: 6 pushed, 4 popped and acked in queue mode; the group "auditors" takes 1 and acks it (lag 5).
  const pushed = await queen.queue('ins-invoices').push(Array.from({ length: 6 }, (_, n) => ({ data: { n } })))
  expect(pushed.map((r: any) => r.status)).toEqual(Array(6).fill('queued'))
  const taken = await queen.queue('ins-invoices').batch(4).wait(false).pop()
  for (const message of taken) await queen.ack(message, true)
  const audited = await queen.queue('ins-invoices').group('auditors').batch(1).wait(false).pop()
  expect(audited).toHaveLength(1)
  await queen.ack(audited[0], true, { group: 'auditors' })
  // ins-clicks: 3 messages a stream of the client's SDK reads and counts into ins-click-totals.
  await queen.queue('ins-clicks').push([1, 2, 3].map((n) => ({ data: { n } })))
  const { Stream } = await loadClient()
  const stream = await Stream.from(queen.queue('ins-clicks'))
    .map((m: any) => ({ doubled: m.data.n * 2 }))
    .to(queen.queue('ins-click-totals'))
    .run({ queryId: 'ins-doubler', url: broker.url, maxWaitMillis: 100 })
  try {
    const sunk = async () =>
      (await http(broker, 'GET', '/api/v1/resources/queues/ins-click-totals')).body?.totals?.total === 3
    await until('the stream wrote its 3 results', sunk)
  } finally {
    await stream.stop()
  }
  // A long-poll parked on an empty queue while the per-minute metrics are written: one parked consumer.
  await queen.queue('ins-idle').create()
  const parked = queen.queue('ins-idle').batch(1).wait(true).timeoutMillis(20_000).pop()
  await until('the long-poll parked', () => broker.services.waiters.parked === 1)
  await refreshCounters()
  await queen.queue('ins-idle').push([{ data: { wake: true } }])
  await parked
}, 60_000)
afterAll(async () => {
  await session?.close()
})

describe('the overview', () => {
  it('adds partitions, health figures, the lag chart and the groups by lag', async () => {
    const page = await session.open('/')
    await expectText(page, 'Groups by lag')
    await expect.poll(() => tile(page, 'Partitions')).toBe('4')
    expect(await tile(page, 'Queues')).toBe('4')
    expect(await tile(page, 'Parked consumers')).toBe('1')
    expect(await tile(page, 'Errors')).toBe('0')
    expect(await tile(page, 'CPU')).toMatch(/^\d+(\.\d)? %$/)
    expect(await tile(page, 'Event loop p99')).toMatch(/ ms$/)
    expect(await tile(page, 'Pool')).toMatch(/^\d+ busy$/)
    expect(await tile(page, 'Retention')).toBe('0')
    expect(await tile(page, 'Eviction')).toBe('0')
    expect(await tableRows(page, 'Groups by lag')).toContainEqual(['auditors', 'ins-invoices', '5', expect.any(String)])
    expect(await tableRows(page, 'Top queues by pending')).toContainEqual(['ins-invoices', '2', '0', '1'])
    expect(await page.locator('.chart').nth(1).getAttribute('aria-label')).toMatch(/^Pop lag per 1-minute bucket/)
    await screenshot(page, 'overview-health')
  })
})

describe('the analytics page', () => {
  it('shows the message flow, the status distribution, the top queues, namespaces and tasks', async () => {
    const page = await session.open('/analytics')
    await expect.poll(() => page.title()).toBe('Analytics · Queen')
    await expectText(page, 'Message flow, last 1h')
    await expect
      .poll(() => page.locator('.chart').first().getAttribute('aria-label'))
      .toMatch(/^Messages per 1-minute bucket over the last 1h; in total pushed 12, popped \d+, acked \d+/)
    expect(await page.locator('.chart canvas').count()).toBe(1)
    const bars = await page.getByRole('list', { name: 'Stored messages by status' }).locator('li').allInnerTexts()
    // The bars say what the broker's counters say (docs/semantics.md, "Status counters").
    const { messages } = (await http(broker, 'GET', '/api/v1/status')).body
    expect(messages.total).toBe(12)
    expect(bars.map((text) => text.replace(/\s+/g, ' ').trim())).toEqual([
      `Pending ${messages.pending}`,
      `Processing ${messages.processing}`,
      `Completed ${messages.completed}`,
      `Failed ${messages.failed}`,
      `Dead letter ${messages.deadLetter}`,
    ])
    expect(messages.completed).toBeGreaterThan(0)
    const queues = await tableRows(page, 'Top queues, last 1h')
    expect(queues.map((row) => row[0])).toEqual(
      expect.arrayContaining(['ins-invoices', 'ins-clicks', 'ins-click-totals']),
    )
    expect(queues.find((row) => row[0] === 'ins-invoices')?.slice(1, 2)).toEqual(['6'])
    expect(await tableRows(page, 'Namespaces')).toContainEqual(['billing', '1', '1', '6', '2'])
    expect(await tableRows(page, 'Tasks')).toContainEqual(['invoicing', '1', '1', '6', '2'])
    await screenshot(page, 'analytics')
  })

  it('keeps the window in the URL', async () => {
    const page = await session.open('/analytics')
    await expectText(page, 'Message flow, last 1h')
    await page.getByRole('link', { name: '24h', exact: true }).click()
    await expect.poll(() => page.url()).toMatch(/\/analytics\?window=24h$/)
    await expectText(page, 'Message flow, last 24h')
    const deep = await session.open('/analytics?window=6h')
    await expectText(deep, 'Top queues, last 6h')
  })
})

describe('the system page', () => {
  it("shows each replica's CPU, memory and pool, and PostgreSQL's internals", async () => {
    const page = await session.open('/system')
    await expect.poll(() => page.title()).toBe('System · Queen')
    await expect.poll(async () => (await tableRows(page, 'Replicas'))[0]?.[0]).toBe('test-broker')
    const [replica] = await tableRows(page, 'Replicas')
    expect(replica?.[2]).toMatch(/ %$/)
    expect(replica?.[3]).toMatch(/ (MB|GB)$/)
    expect(replica?.[7]).toBe('1') // the parked long-poll
    expect(await page.locator('.chart canvas').count()).toBe(4)
    expect(await tile(page, 'Cache hit (database)')).toMatch(/ %$/)
    expect(Number((await tile(page, 'Connections')).replace(/,/g, ''))).toBeGreaterThan(0)
    const sizes = await tableRows(page, 'Table sizes')
    expect(sizes.map((row) => row[0])).toContainEqual(expect.stringMatching(/messages$/))
    expect((await tableRows(page, 'Dead tuples')).length).toBeGreaterThan(0)
    await expectText(page, /^(On|Off): up to \d+ workers/)
    await screenshot(page, 'system')
  })
})

describe('the streams page', () => {
  it('lists the stream the SDK registered, with what it consumed and its state rows', async () => {
    const page = await session.open('/streams')
    await expect.poll(() => page.title()).toBe('Streams · Queen')
    await expect.poll(async () => await page.locator('main table.data tbody tr').count()).toBe(1)
    const cells = await page.locator('main table.data tbody tr td').allInnerTexts()
    expect(cells.slice(0, 6)).toEqual(['ins-doubler', 'running', 'ins-clicks', 'ins-click-totals', '3', '0'])
    await page.getByRole('link', { name: 'ins-click-totals' }).click()
    await expect.poll(() => new URL(page.url()).pathname).toBe('/queues/ins-click-totals')
    await screenshot(await session.open('/streams'), 'streams')
  })
})

describe('the replicas page of a broker without a mesh', () => {
  it('says it runs alone, and still shows its parked consumers', async () => {
    const page = await session.open('/replicas')
    await expect.poll(() => page.title()).toBe('Replicas · Queen')
    await expectText(page, 'No mesh configured: this broker (test-broker) runs alone')
    await expect
      .poll(async () => (await tableRows(page, 'Parked consumers per replica, last 1h'))[0])
      .toEqual(['test-broker', expect.any(String), '1', expect.stringMatching(/ ago$/)])
    await screenshot(page, 'replicas-alone')
  })
})

const PAGES = [
  ['analytics', '/analytics', 'Status distribution'],
  ['system', '/system', 'Table sizes'],
  ['streams', '/streams', 'ins-doubler'],
  ['replicas', '/replicas', 'No mesh configured'],
  ['overview', '/', 'Groups by lag'],
] as const

describe('every page', () => {
  it('is reached from the header with the keyboard alone', async () => {
    const page = await session.open('/')
    await expectText(page, 'Groups by lag')
    const focused = () => page.evaluate<string>("document.activeElement?.textContent?.trim() ?? ''")
    for (const [name, target, text] of PAGES.slice(0, 4)) {
      const label = name[0]!.toUpperCase() + name.slice(1)
      let reached = false
      for (let presses = 0; presses < 40 && !reached; presses++) {
        await page.keyboard.press('Tab')
        reached = (await focused()) === label
      }
      expect(reached, `Tab reaches ${label}`).toBe(true)
      await page.keyboard.press('Enter')
      await expect.poll(() => new URL(page.url()).pathname).toBe(target)
      await expectText(page, text)
    }
  })

  it.each(PAGES)('the %s page fits 375 px without scrolling sideways', async (name, target, text) => {
    const page = await session.open(target, { width: 375, height: 800 })
    await expectText(page, text)
    expect(await scrollsSideways(page)).toBe(false)
    await screenshot(page, `${name}-375px`)
  })

  for (const theme of ['light', 'dark'] as const) {
    it.each(PAGES)(
      `the %s page has no serious or critical axe findings in the ${theme} theme`,
      async (name, target, text) => {
        const page = await session.open(target, { colorScheme: theme })
        await expectText(page, text)
        expect(await seriousAccessibilityFindings(page)).toEqual([])
        if (theme === 'dark') await screenshot(page, `${name}-dark`)
      },
    )
  }

  it('sent no request off loopback and logged no error', () => {
    const all = session.opened.flatMap((recorded) => recorded.requests)
    expect(all.length).toBeGreaterThan(50)
    expect(offLoopback(all)).toEqual([])
    expect(session.opened.flatMap((recorded) => unexpectedErrors(recorded.errors))).toEqual([])
  })
})
