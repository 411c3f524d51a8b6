/**
 * The traces page (docs/dashboard.md, "What it shows") in a real Chromium against a JWT broker whose trace
 * events come from the JavaScript client's consumer (`message.trace()`): the names recorded, a search by
 * name in the URL, the timeline of one trace linked to its messages, and the same events in a message's
 * drawer; a read-only token reads it all; keyboard only; 375 px; axe in both themes; nothing off loopback.
 */
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectText, screenshot, scrollsSideways, seriousAccessibilityFindings } from './browser.js'
import { expectQuietBrowser, startSignedInSession, tabTo, type SignedInSession } from './signed-in.js'

let session: SignedInSession

/** The names table, one "name events messages" line per row. */
async function names(page: Page): Promise<string[]> {
  const rows = await page.locator('section[aria-labelledby="names-title"] tbody tr').allInnerTexts()
  return rows.map((row) => row.split('\t').slice(0, 3).join(' ').trim())
}

/** The timeline's events as "type on queue/partition · tx", in the order shown. */
async function timeline(page: Page): Promise<string[]> {
  const events = await page.locator('section[aria-labelledby="timeline-title"] .timeline-what').allInnerTexts()
  return events.map((text) => text.split(' · queue mode')[0]!.trim())
}

beforeAll(async () => {
  session = await startSignedInSession('dashboard_traces')
  const queen = session.queen
  const results = await queen
    .queue('trace-orders')
    .partition('p1')
    .push(['o-1', 'o-2', 'o-3'].map((id) => ({ transactionId: id, data: { order: id } })))
  expect(results.map((r: any) => r.status)).toEqual(['queued', 'queued', 'queued'])
  // One consumer, one message at a time: received, (a retry note on o-2,) charged.
  const traced: string[] = []
  await queen
    .queue('trace-orders')
    .batch(1)
    .limit(3)
    .each()
    .consume(async (message: any) => {
      const id = message.transactionId
      const step = (eventType: string, traceName: string | string[], data: object) =>
        message.trace({ traceName, eventType, data }).then((answer: any) => {
          expect(answer.success).toBe(true)
          traced.push(`${eventType} ${id}`)
        })
      await step('received', 'checkout', { order: id })
      if (id === 'o-2') await step('error', 'checkout', { reason: 'payment retry' })
      await step('charged', ['checkout', `order-${id}`], { order: id, amount: 42 })
    })
  expect(traced).toHaveLength(7)
})
afterAll(async () => {
  await session?.close()
})

describe('what it shows', () => {
  it('the trace names with their counts, narrowed by the search and opened by a link', async () => {
    const page = await session.openAs('/traces')
    await expect.poll(() => page.title()).toBe('Traces · Queen')
    await expect
      .poll(async () => (await names(page)).sort())
      .toEqual(['checkout 7 3', 'order-o-1 1 1', 'order-o-2 1 1', 'order-o-3 1 1'])
    await page.getByLabel('Trace name', { exact: true }).fill('order')
    await expect
      .poll(async () => (await names(page)).sort())
      .toEqual(['order-o-1 1 1', 'order-o-2 1 1', 'order-o-3 1 1'])
    expect(new URL(page.url()).search).toBe('?name=order')
    await expectText(page, 'No event carries the trace name “order”.')
    await page.getByRole('link', { name: 'order-o-2' }).click()
    await expect.poll(() => new URL(page.url()).search).toBe('?name=order-o-2')
    await expect.poll(() => timeline(page)).toEqual(['charged on trace-orders/p1 · o-2'])
  })

  it('the timeline of a trace from a deep link, oldest first, each event linked to its message', async () => {
    const page = await session.openAs('/traces?name=checkout')
    await expect.poll(async () => (await timeline(page)).length).toBe(7)
    expect((await timeline(page)).sort()).toEqual([
      'charged on trace-orders/p1 · o-1',
      'charged on trace-orders/p1 · o-2',
      'charged on trace-orders/p1 · o-3',
      'error on trace-orders/p1 · o-2',
      'received on trace-orders/p1 · o-1',
      'received on trace-orders/p1 · o-2',
      'received on trace-orders/p1 · o-3',
    ])
    const times: string[] = []
    for (const node of await page.locator('.timeline time').all())
      times.push((await node.getAttribute('datetime')) ?? '')
    expect(times).toEqual([...times].sort())
    await expectText(page, '7 events on 3 messages, oldest first.')
    expect(await page.getByRole('region', { name: 'Data of the error event' }).innerText()).toContain('payment retry')
    await screenshot(page, 'traces')

    await page.getByRole('link', { name: 'trace-orders/p1 · o-2' }).first().click()
    const drawer = page.getByRole('complementary', { name: 'Message o-2' })
    await drawer.waitFor()
    await expect
      .poll(async () => (await drawer.locator('.event-type').allInnerTexts()).sort())
      .toEqual(['charged', 'error', 'received'])
    await expectText(page, 'Trace events (3)')
    // The page behind the drawer lists the queue's messages, every age.
    await expect.poll(() => page.locator('main table.data:has(caption) tbody tr').count()).toBe(3)
    await screenshot(page, 'message-traces')
  })

  it('a read-only token reads the names and the timeline', async () => {
    const page = await session.openAs('/traces?name=order-o-1', { token: session.readOnly })
    await expect.poll(() => timeline(page)).toEqual(['charged on trace-orders/p1 · o-1'])
    await expectText(page, 'Signed in as read-only')
  })
})

describe('keyboard, phone, accessibility', () => {
  it('searches and opens an event’s message with the keyboard alone', async () => {
    const page = await session.openAs('/')
    await page.getByRole('link', { name: 'Traces' }).waitFor()
    await tabTo(page, 'Traces')
    await page.keyboard.press('Enter')
    await expect.poll(() => new URL(page.url()).pathname).toBe('/traces')
    await tabTo(page, 'Trace name')
    await page.keyboard.type('order-o-3')
    await expect.poll(() => timeline(page)).toEqual(['charged on trace-orders/p1 · o-3'])
    await tabTo(page, 'trace-orders/p1 · o-3')
    await page.keyboard.press('Enter')
    await page.getByRole('complementary', { name: 'Message o-3' }).waitFor()
  })

  it('fits 375 px without scrolling sideways', async () => {
    const page = await session.openAs('/traces?name=checkout', { width: 375, height: 800 })
    await expect.poll(async () => (await timeline(page)).length).toBe(7)
    expect(await scrollsSideways(page)).toBe(false)
    await screenshot(page, 'traces-375px')
  })

  for (const theme of ['light', 'dark'] as const) {
    it(`has no serious or critical axe findings in the ${theme} theme`, async () => {
      const page = await session.openAs('/traces?name=checkout', { colorScheme: theme })
      await expect.poll(async () => (await timeline(page)).length).toBe(7)
      expect(await seriousAccessibilityFindings(page)).toEqual([])
      if (theme === 'dark') await screenshot(page, 'traces-dark')
    })
  }

  it('sent no request off loopback and logged no error', () => {
    expectQuietBrowser(session)
  })
})
