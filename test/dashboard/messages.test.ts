/**
 * The messages page (docs/dashboard.md, "What it shows") in a real Chromium against a JWT broker with traffic
 * from the JavaScript client: the list filtered through the URL by queue, partition, status and time; the
 * drawer with payload, retries, error and lease; retry, move to the DLQ and delete, each confirmed and each
 * read back through the API; a read-only token sees no action; keyboard only; 375 px; axe in both themes;
 * nothing off loopback.
 */
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectText, screenshot, scrollsSideways, seriousAccessibilityFindings } from './browser.js'
import { expectQuietBrowser, startSignedInSession, tabTo, type SignedInSession } from './signed-in.js'

let session: SignedInSession
let queen: any
let partitionId: string

const QUEUE = 'msg-orders'

/** The transaction ids in the list, top to bottom. */
function listed(page: Page): Promise<string[]> {
  return page.locator('main table.data tbody tr td:first-child').allInnerTexts()
}

/** The status cell of the row of `tx`. */
function statusOf(page: Page, tx: string): Promise<string> {
  return page.locator('main table.data tbody tr', { hasText: tx }).locator('td').nth(2).innerText()
}

/** The message's status in queue mode, through the API. */
async function statusThroughApi(tx: string): Promise<string> {
  const message = await session.api('GET', `/api/v1/messages/${partitionId}/${tx}`)
  return message.status
}

async function popOne(): Promise<any> {
  const [message] = await queen.queue(QUEUE).batch(1).wait(false).pop()
  expect(message).toBeDefined()
  return message
}

beforeAll(async () => {
  session = await startSignedInSession('dashboard_messages')
  queen = session.queen
  await queen.queue(QUEUE).config({ retryLimit: 0 }).create()
  const results = await queen
    .queue(QUEUE)
    .partition('p1')
    .push([0, 1, 2, 3, 4].map((n) => ({ transactionId: `m-${n}`, data: { order: n, item: `book-${n}` } })))
  expect(results.map((r: any) => r.status)).toEqual(Array(5).fill('queued'))
  partitionId = results[0].partition_id
  // m-0 fails once and is dead-lettered (retryLimit 0), m-1 completes, m-2 stays leased; m-3, m-4 pending.
  const failed = await popOne()
  expect(failed.transactionId).toBe('m-0')
  await queen.ack(failed, false, { error: 'card declined' })
  await queen.ack(await popOne(), true)
  expect((await popOne()).transactionId).toBe('m-2')
})
afterAll(async () => {
  await session?.close()
})

describe('the list', () => {
  it('shows the queue’s messages with their statuses, and filters by status through the URL', async () => {
    const page = await session.openAs(`/messages?queue=${QUEUE}`)
    await expect.poll(() => page.title()).toBe('Messages · Queen')
    await expect.poll(() => listed(page)).toEqual(['m-4', 'm-3', 'm-2', 'm-1', 'm-0'])
    expect(await statusOf(page, 'm-0')).toBe('dead letter')
    expect(await statusOf(page, 'm-1')).toBe('completed')
    expect(await statusOf(page, 'm-2')).toBe('processing')
    expect(await statusOf(page, 'm-3')).toBe('pending')
    await screenshot(page, 'messages')

    await page.getByLabel('Status').selectOption('dead_letter')
    await expect.poll(() => listed(page)).toEqual(['m-0'])
    expect(new URL(page.url()).searchParams.get('status')).toBe('dead_letter')
    await page.getByLabel('Partition').fill('elsewhere')
    await expectText(page, 'No message matches these filters.')

    const deep = await session.openAs(`/messages?queue=${QUEUE}&status=pending`)
    await expect.poll(() => listed(deep)).toEqual(['m-4', 'm-3'])
    expect(await deep.getByLabel('Status').inputValue()).toBe('pending')
    const window = await session.openAs(`/messages?queue=${QUEUE}&since=24h&status=completed`)
    await expect.poll(() => listed(window)).toEqual(['m-1'])
    expect(await window.getByLabel('Created in the last').inputValue()).toBe('24h')
  })
})

describe('the drawer', () => {
  it('shows a dead letter’s payload, retries and error, and a leased message’s lease, from a deep link', async () => {
    const page = await session.openAs(`/messages?queue=${QUEUE}`)
    await page.getByRole('link', { name: 'm-0', exact: true }).click()
    await expect.poll(() => new URL(page.url()).searchParams.get('tx')).toBe('m-0')
    const drawer = page.getByRole('complementary', { name: 'Message m-0' })
    await drawer.waitFor()
    await expect.poll(() => drawer.getByRole('region', { name: 'Payload' }).innerText()).toContain('"item": "book-0"')
    const text = await drawer.innerText()
    expect(text).toContain('card declined')
    expect(text).toMatch(/Retries\s+1 of 0 allowed/)
    expect(text).toContain(`${QUEUE}/p1`)
    await screenshot(page, 'message-drawer')

    const leased = await session.openAs(`/messages?pid=${partitionId}&tx=m-2`)
    const other = leased.getByRole('complementary', { name: 'Message m-2' })
    await expect.poll(() => other.innerText()).toMatch(/Status \(queue mode\)\s+processing/)
    expect(await other.innerText()).not.toMatch(/Lease until\s+–/)
    await leased.keyboard.press('Escape')
    await expect.poll(() => new URL(leased.url()).search).toBe('')
  })
})

describe('actions', () => {
  async function confirm(page: Page, button: string, dialog: string, confirmLabel: string): Promise<void> {
    await page.getByRole('complementary').getByRole('button', { name: button, exact: true }).click()
    await page.getByRole('dialog', { name: dialog }).getByRole('button', { name: confirmLabel, exact: true }).click()
  }

  it('retries a dead letter: it is pending again and out of the DLQ', async () => {
    const page = await session.openAs(`/messages?queue=${QUEUE}&pid=${partitionId}&tx=m-0`)
    // Cancelling changes nothing.
    await page.getByRole('complementary').getByRole('button', { name: 'Retry', exact: true }).click()
    await page.keyboard.press('Escape')
    await page.getByRole('dialog').waitFor({ state: 'hidden' })
    expect(await statusThroughApi('m-0')).toBe('dead_letter')
    expect(new URL(page.url()).searchParams.get('tx')).toBe('m-0')

    await confirm(page, 'Retry', 'Retry m-0?', 'Retry')
    await expectText(page, 'Retried: redelivered to 1 group(s).')
    expect(await statusThroughApi('m-0')).toBe('pending')
    expect((await session.api('GET', `/api/v1/dlq?queue=${QUEUE}`)).total).toBe(0)
    await expect.poll(() => statusOf(page, 'm-0')).toBe('pending')
  })

  it('moves a pending message to the DLQ', async () => {
    const page = await session.openAs(`/messages?queue=${QUEUE}&pid=${partitionId}&tx=m-3`)
    await confirm(page, 'Move to DLQ', 'Move m-3 to the dead-letter queue?', 'Move to DLQ')
    await expectText(page, 'Moved to the dead-letter queue for queue mode.')
    const dlq = await session.api('GET', `/api/v1/dlq?queue=${QUEUE}`)
    expect(dlq.messages.map((m: any) => [m.transactionId, m.errorMessage])).toEqual([
      ['m-3', 'Moved to the dead-letter queue'],
    ])
    expect(await statusThroughApi('m-3')).toBe('dead_letter')
  })

  it('deletes a message and closes the drawer', async () => {
    const page = await session.openAs(`/messages?queue=${QUEUE}&pid=${partitionId}&tx=m-4`)
    await confirm(page, 'Delete', 'Delete m-4?', 'Delete')
    await expect.poll(() => new URL(page.url()).searchParams.get('tx')).toBe(null)
    await session.api('GET', `/api/v1/messages/${partitionId}/m-4`, undefined, 404)
    await expect.poll(() => listed(page)).toEqual(['m-3', 'm-2', 'm-1', 'm-0'])
  })

  it('offers no action to a read-only token, which still sees the message', async () => {
    const page = await session.openAs(`/messages?queue=${QUEUE}&pid=${partitionId}&tx=m-3`, {
      token: session.readOnly,
    })
    const drawer = page.getByRole('complementary', { name: 'Message m-3' })
    await expect.poll(() => drawer.getByRole('region', { name: 'Payload' }).innerText()).toContain('book-3')
    await expectText(page, 'Signed in as read-only')
    expect(await page.getByRole('button', { name: /Retry|Move to DLQ|Delete/ }).count()).toBe(0)
  })
})

describe('keyboard, phone, accessibility', () => {
  it('reaches the page, a filter and a message with the keyboard alone', async () => {
    const page = await session.openAs('/')
    await page.getByRole('link', { name: 'Messages' }).waitFor()
    await tabTo(page, 'Messages')
    await page.keyboard.press('Enter')
    await expect.poll(() => new URL(page.url()).pathname).toBe('/messages')
    await tabTo(page, 'Queue')
    await page.keyboard.type(QUEUE)
    await expect.poll(() => listed(page)).toEqual(['m-3', 'm-2', 'm-1', 'm-0'])
    await tabTo(page, 'm-2')
    await page.keyboard.press('Enter')
    const drawer = page.getByRole('complementary', { name: 'Message m-2' })
    await drawer.waitFor()
    // The drawer's heading has the focus; Tab reaches its actions.
    expect(await page.evaluate<string>("document.activeElement?.id ?? ''")).toBe('drawer-title')
    await tabTo(page, 'Move to DLQ')
    await page.keyboard.press('Escape')
    await expect.poll(() => new URL(page.url()).searchParams.get('tx')).toBe(null)
  })

  it('fits 375 px without scrolling sideways, list and drawer', async () => {
    const page = await session.openAs(`/messages?queue=${QUEUE}`, { width: 375, height: 800 })
    await expect.poll(() => listed(page)).toEqual(['m-3', 'm-2', 'm-1', 'm-0'])
    expect(await scrollsSideways(page)).toBe(false)
    await screenshot(page, 'messages-375px')
    await page.getByRole('link', { name: 'm-0', exact: true }).click()
    await page.getByRole('complementary', { name: 'Message m-0' }).getByRole('region', { name: 'Payload' }).waitFor()
    expect(await scrollsSideways(page)).toBe(false)
    await screenshot(page, 'message-drawer-375px')
  })

  for (const theme of ['light', 'dark'] as const) {
    it(`has no serious or critical axe findings in the ${theme} theme, drawer open`, async () => {
      const page = await session.openAs(`/messages?queue=${QUEUE}&pid=${partitionId}&tx=m-0`, { colorScheme: theme })
      await page.getByRole('region', { name: 'Payload' }).waitFor()
      await expect.poll(() => listed(page)).toEqual(['m-3', 'm-2', 'm-1', 'm-0'])
      expect(await seriousAccessibilityFindings(page)).toEqual([])
      if (theme === 'dark') await screenshot(page, 'messages-dark')
    })
  }

  it('refreshes the list live, and not while paused', async () => {
    const page = await session.openAs(`/messages?queue=${QUEUE}`)
    await expect.poll(() => listed(page)).toEqual(['m-3', 'm-2', 'm-1', 'm-0'])
    await page.getByRole('button', { name: 'Pause updates' }).click()
    await page.getByRole('button', { name: 'Resume updates' }).waitFor()
    const recorded = session.opened.at(-1)!
    recorded.requests.length = 0
    await queen
      .queue(QUEUE)
      .partition('p1')
      .push([{ transactionId: 'm-5', data: { order: 5 } }])
    await page.waitForTimeout(4500)
    expect(recorded.requests.filter((url) => new URL(url).pathname.startsWith('/api/'))).toEqual([])
    expect(await listed(page)).toEqual(['m-3', 'm-2', 'm-1', 'm-0'])
    await page.getByRole('button', { name: 'Resume updates' }).click()
    await expect.poll(() => listed(page), { timeout: 6000 }).toEqual(['m-5', 'm-3', 'm-2', 'm-1', 'm-0'])
  })

  it('sent no request off loopback and logged no error', () => {
    expectQuietBrowser(session)
  })
})
