/**
 * The DLQ page (docs/dashboard.md, "What it shows") in a real Chromium against a JWT broker whose dead letters
 * come from the JavaScript client's failed acks: totals and top errors, filters through the URL, an entry's
 * detail; requeue of one entry, bulk requeue and purge, each confirmed and read back through the API; a
 * read-only token sees no action; keyboard only; 375 px; axe in both themes; nothing off loopback.
 */
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectText, screenshot, scrollsSideways, seriousAccessibilityFindings, tileValue } from './browser.js'
import { expectQuietBrowser, startSignedInSession, tabTo, type SignedInSession } from './signed-in.js'

let session: SignedInSession
let queen: any

/** Pushes named messages to a partition of a queue that dead-letters at the first failure. */
async function pushTo(queue: string, partition: string, ids: string[]): Promise<string> {
  const results = await queen
    .queue(queue)
    .partition(partition)
    .push(ids.map((id) => ({ transactionId: id, data: { id, amount: 10 } })))
  expect(results.map((r: any) => r.status)).toEqual(Array(ids.length).fill('queued'))
  return results[0].partition_id
}

/** Pops the next message of the partition and fails it with `error`. */
async function failNext(queue: string, partition: string, expected: string, error: string): Promise<void> {
  const [message] = await queen.queue(queue).partition(partition).batch(1).wait(false).pop()
  expect(message?.transactionId).toBe(expected)
  await queen.ack(message, false, { error })
}

/** The DLQ through the API: the transaction ids matching `query`. */
async function dlqIds(query = ''): Promise<string[]> {
  const answer = await session.api('GET', `/api/v1/dlq${query}`)
  return answer.messages.map((m: any) => m.transactionId).sort()
}

function listed(page: Page, column = 0): Promise<string[]> {
  return page.locator(`main table.data:has(caption) tbody tr td:nth-child(${column + 1})`).allInnerTexts()
}

async function sortedList(page: Page): Promise<string[]> {
  return (await listed(page)).sort()
}

async function topErrors(page: Page): Promise<string[]> {
  const rows = page.locator('section[aria-labelledby="top-errors-title"] tbody tr')
  return (await rows.allInnerTexts()).map((text) => text.replace(/\s+/g, ' ').trim())
}

let p1: string

beforeAll(async () => {
  session = await startSignedInSession('dashboard_dlq')
  queen = session.queen
  for (const queue of ['dlq-orders', 'dlq-emails']) await queen.queue(queue).config({ retryLimit: 0 }).create()
  p1 = await pushTo('dlq-orders', 'p1', ['d-0', 'd-1', 'd-2', 'd-3'])
  await pushTo('dlq-orders', 'p2', ['e-0', 'e-1'])
  await pushTo('dlq-emails', 'Default', ['mail-0'])
  await failNext('dlq-orders', 'p1', 'd-0', 'card declined')
  await failNext('dlq-orders', 'p1', 'd-1', 'card declined')
  await failNext('dlq-orders', 'p1', 'd-2', 'gateway timeout')
  await failNext('dlq-orders', 'p2', 'e-0', 'card declined')
  await failNext('dlq-emails', 'Default', 'mail-0', 'smtp down')
  expect(await dlqIds()).toEqual(['d-0', 'd-1', 'd-2', 'e-0', 'mail-0'])
})
afterAll(async () => {
  await session?.close()
})

describe('what it shows', () => {
  it('the totals, the top errors and every entry', async () => {
    const page = await session.openAs('/dlq')
    await expect.poll(() => page.title()).toBe('Dead-letter queue · Queen')
    await expect.poll(() => sortedList(page)).toEqual(['d-0', 'd-1', 'd-2', 'e-0', 'mail-0'])
    expect(await tileValue(page, 'Matching entries')).toBe('5')
    expect(await tileValue(page, 'All entries')).toBe('5')
    expect(await tileValue(page, 'Affected partitions')).toBe('3')
    expect(await topErrors(page)).toEqual(['card declined 3', 'gateway timeout 1', 'smtp down 1'])
    await screenshot(page, 'dlq')
  })

  it('filters by queue and partition through the URL, and opens from a deep link', async () => {
    const page = await session.openAs('/dlq?queue=dlq-orders')
    await expect.poll(() => sortedList(page)).toEqual(['d-0', 'd-1', 'd-2', 'e-0'])
    expect(await tileValue(page, 'Entries of dlq-orders')).toBe('4')
    expect(await topErrors(page)).toEqual(['card declined 3', 'gateway timeout 1'])
    await page.getByLabel('Partition').fill('p2')
    await expect.poll(() => listed(page)).toEqual(['e-0'])
    expect(await tileValue(page, 'Matching entries')).toBe('1')
    expect(new URL(page.url()).search).toBe('?queue=dlq-orders&partition=p2')

    const deep = await session.openAs('/dlq?queue=dlq-emails&since=24h')
    await expect.poll(() => listed(deep)).toEqual(['mail-0'])
    expect(await deep.getByLabel('Failed in the last').inputValue()).toBe('24h')
    const group = await session.openAs('/dlq?group=billing')
    await expectText(group, 'No dead-letter entry matches these filters.')
  })

  it('shows an entry’s error, retries and payload in the drawer', async () => {
    const page = await session.openAs('/dlq?queue=dlq-orders')
    await page.getByRole('link', { name: 'd-2', exact: true }).click()
    const drawer = page.getByRole('complementary', { name: 'Dead letter d-2' })
    await drawer.waitFor()
    expect(new URL(page.url()).searchParams.get('tx')).toBe('d-2')
    const text = await drawer.innerText()
    expect(text).toMatch(/Error\s+gateway timeout/)
    expect(text).toMatch(/Retries\s+1/)
    expect(text).toContain('dlq-orders/p1')
    expect(await drawer.getByRole('region', { name: 'Payload' }).innerText()).toContain('"id": "d-2"')
    await screenshot(page, 'dlq-entry')
    // Its link opens the message on the messages page.
    await drawer.getByRole('link', { name: 'Open the message' }).click()
    await page.getByRole('complementary', { name: 'Message d-2' }).waitFor()
    await expectText(page, 'gateway timeout')
  })

  it('offers no action to a read-only token, which still sees the entries', async () => {
    const page = await session.openAs(`/dlq?pid=${p1}&tx=d-2&cg=__QUEUE_MODE__`, { token: session.readOnly })
    await page
      .getByRole('complementary', { name: 'Dead letter d-2' })
      .getByRole('region', { name: 'Payload' })
      .waitFor()
    await expect.poll(() => sortedList(page)).toEqual(['d-0', 'd-1', 'd-2', 'e-0', 'mail-0'])
    expect(await page.getByRole('button', { name: /Requeue|Purge|Delete/ }).count()).toBe(0)
  })
})

describe('keyboard, phone, accessibility', () => {
  it('reaches the page, a filter, an entry and its actions with the keyboard alone', async () => {
    const page = await session.openAs('/')
    await page.getByRole('link', { name: 'DLQ' }).waitFor()
    await tabTo(page, 'DLQ')
    await page.keyboard.press('Enter')
    await expect.poll(() => new URL(page.url()).pathname).toBe('/dlq')
    await tabTo(page, 'Queue')
    await page.keyboard.type('dlq-emails')
    await expect.poll(() => listed(page)).toEqual(['mail-0'])
    await tabTo(page, 'Requeue all 1')
    await tabTo(page, 'mail-0')
    await page.keyboard.press('Enter')
    await page.getByRole('complementary', { name: 'Dead letter mail-0' }).waitFor()
    await tabTo(page, 'Requeue')
    await page.keyboard.press('Enter')
    const dialog = page.getByRole('dialog', { name: 'Requeue mail-0?' })
    await dialog.waitFor()
    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'hidden' })
    expect(await dlqIds('?queue=dlq-emails')).toEqual(['mail-0'])
  })

  it('fits 375 px without scrolling sideways', async () => {
    const page = await session.openAs('/dlq', { width: 375, height: 800 })
    await expect.poll(() => sortedList(page)).toEqual(['d-0', 'd-1', 'd-2', 'e-0', 'mail-0'])
    expect(await scrollsSideways(page)).toBe(false)
    await screenshot(page, 'dlq-375px')
  })

  for (const theme of ['light', 'dark'] as const) {
    it(`has no serious or critical axe findings in the ${theme} theme, an entry open`, async () => {
      const page = await session.openAs(`/dlq?pid=${p1}&tx=d-0&cg=__QUEUE_MODE__`, { colorScheme: theme })
      await page.getByRole('region', { name: 'Payload' }).waitFor()
      expect(await seriousAccessibilityFindings(page)).toEqual([])
      if (theme === 'dark') await screenshot(page, 'dlq-dark')
    })
  }
})

describe('actions', () => {
  it('requeues one entry: it leaves the DLQ and is pending again', async () => {
    const page = await session.openAs(`/dlq?queue=dlq-orders&pid=${p1}&tx=d-2&cg=__QUEUE_MODE__`)
    const drawer = page.getByRole('complementary', { name: 'Dead letter d-2' })
    await drawer.getByRole('button', { name: 'Requeue', exact: true }).click()
    await page.getByRole('dialog', { name: 'Requeue d-2?' }).getByRole('button', { name: 'Requeue' }).click()
    await expectText(page, 'Requeued d-2.')
    expect(await dlqIds('?queue=dlq-orders')).toEqual(['d-0', 'd-1', 'e-0'])
    expect((await session.api('GET', `/api/v1/messages/${p1}/d-2`)).status).toBe('pending')
    await expect.poll(() => sortedList(page)).toEqual(['d-0', 'd-1', 'e-0'])
  })

  it('requeues every entry matching the filters, and only those', async () => {
    const page = await session.openAs('/dlq?queue=dlq-orders&partition=p1')
    await expect.poll(() => sortedList(page)).toEqual(['d-0', 'd-1'])
    await page.getByRole('button', { name: 'Requeue all 2' }).click()
    const dialog = page.getByRole('dialog', { name: 'Requeue 2 dead letters?' })
    expect(await dialog.innerText()).toContain('queue dlq-orders, partition p1')
    await dialog.getByRole('button', { name: 'Requeue all' }).click()
    await expectText(page, 'Requeued 2 of 2.')
    expect(await dlqIds()).toEqual(['e-0', 'mail-0'])
    for (const id of ['d-0', 'd-1']) {
      expect((await session.api('GET', `/api/v1/messages/${p1}/${id}`)).status).toBe('pending')
    }
    await expectText(page, 'No dead-letter entry matches these filters.')
  })

  it('purges every entry matching the filters: their messages are deleted', async () => {
    const page = await session.openAs('/dlq?queue=dlq-emails')
    await expect.poll(() => listed(page)).toEqual(['mail-0'])
    const partitionId = (await session.api('GET', '/api/v1/dlq?queue=dlq-emails')).messages[0].partitionId
    await page.getByRole('button', { name: 'Purge all 1' }).click()
    await page.getByRole('dialog', { name: 'Purge 1 dead letter?' }).getByRole('button', { name: 'Purge' }).click()
    await expectText(page, 'Purged: deleted 1 of 1.')
    expect(await dlqIds()).toEqual(['e-0'])
    await session.api('GET', `/api/v1/messages/${partitionId}/mail-0`, undefined, 404)
  })

  it('sent no request off loopback and logged no error', () => {
    expectQuietBrowser(session)
  })
})
