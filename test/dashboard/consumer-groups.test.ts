/**
 * The consumer-group pages (docs/dashboard.md, "What it shows") in a real Chromium against a live broker with
 * groups that consumed through the public JavaScript client: the list shows each group's lag and marks it
 * against the threshold of the URL; a group's page shows its partitions; seeking a partition to its end, a
 * queue to its end and a queue to a time, and deleting the group, each asks first and changes what the
 * broker answers through its API; a bad time gets the broker's refusal; the keyboard alone seeks; 375 px,
 * axe-core in both themes, screenshots, and no request off loopback.
 */
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { http, type TestBroker } from '../support/broker.js'
import { expectText, type openPage, screenshot, startDashboardSession, type DashboardSession } from './browser.js'
import { describeEveryPageChecks, type CheckedPage } from './page-checks.js'
import { confirmDialog, tableRows } from './page-parts.js'
import { consume, pushTo } from './traffic.js'

let session: DashboardSession
let broker: TestBroker

function open(target: string, options: Parameters<typeof openPage>[1] = {}): Promise<Page> {
  return session.open(target, options)
}

/** The unsettled count per partition of `group` on `queue`, as the broker answers it. */
async function lagOf(group: string, queue: string): Promise<Record<string, number>> {
  const answer = await http(broker, 'GET', `/api/v1/consumer-groups/${group}`)
  expect(answer.status).toBe(200)
  const partitions = (answer.body[queue]?.partitions ?? []) as { partition: string; offsetLag: number }[]
  return Object.fromEntries(partitions.map((row) => [row.partition, row.offsetLag]))
}

beforeAll(async () => {
  session = await startDashboardSession({ label: 'dashboard_groups' })
  broker = session.broker
  const { queen } = session
  // cg-orders: p1 and p2 with 3 messages each; billing reads all six, then 2 + 1 more arrive (lag 3);
  // reports reads one (lag 8). cg-emails: queue mode reads 1 of 2.
  await pushTo(queen, 'cg-orders', ['p1', 'p2'], 3)
  await consume(queen, 'cg-orders', 'billing', 6)
  await consume(queen, 'cg-orders', 'reports', 1)
  await pushTo(queen, 'cg-orders', ['p1'], 2)
  await pushTo(queen, 'cg-orders', ['p2'], 1)
  await pushTo(queen, 'cg-emails', ['Default'], 2)
  await consume(queen, 'cg-emails', undefined, 1)
  expect(await lagOf('billing', 'cg-orders')).toEqual({ p1: 2, p2: 1 })
})
afterAll(async () => {
  await session?.close()
})

describe('the consumer-group list', () => {
  it('shows every group and queue with its lag, marked against the threshold in the URL', async () => {
    const page = await open('/consumer-groups')
    await expect.poll(() => page.title()).toBe('Consumer groups · Queen')
    await expect
      .poll(() => tableRows(page))
      .toEqual([
        expect.stringMatching(/^(billing|reports|queue mode) \| /),
        expect.stringMatching(/^(billing|reports|queue mode) \| /),
        expect.stringMatching(/^(billing|reports|queue mode) \| /),
      ])
    const byGroup = Object.fromEntries((await tableRows(page)).map((row) => [row.split(' | ')[0], row.split(' | ')]))
    // Group | Queue | Partitions | Partitions behind | Unsettled | ...
    expect(byGroup.billing?.slice(1, 5)).toEqual(['cg-orders', '2', '2', '3'])
    expect(byGroup.reports?.slice(1, 5)).toEqual(['cg-orders', '2', '2', '8'])
    expect(byGroup['queue mode']?.slice(1, 5)).toEqual(['cg-emails', '1', '1', '1'])
    await expectText(page, /^0 of 3 group and queue pairs have an unsettled message older than 5 min 0 s\.$/)
    await screenshot(page, 'consumer-groups')

    // A threshold of 0 s: every pair with an unsettled message (at least a second old) is over it.
    await page.getByLabel('Lag threshold (s)').fill('0')
    await expect.poll(() => new URL(page.url()).search).toBe('?threshold=0')
    await expectText(page, /^3 of 3 group and queue pairs have an unsettled message older than 0 s\.$/)
    expect(await page.getByText('over threshold').count()).toBe(3)
    await page.getByLabel('Filter by name').fill('bill')
    await expect.poll(() => tableRows(page)).toEqual([expect.stringMatching(/^billing \| cg-orders \| /)])
    expect(new URL(page.url()).searchParams.get('q')).toBe('bill')
  })

  it('opens from a deep link with only the groups over the threshold', async () => {
    const page = await open('/consumer-groups?threshold=100000&lagging=1')
    await expectText(page, 'No group matches the filters.')
    expect(await page.getByLabel('Only over the threshold').isChecked()).toBe(true)
    expect(await page.getByLabel('Lag threshold (s)').inputValue()).toBe('100000')
    await page.getByLabel('Only over the threshold').uncheck()
    await expect.poll(() => new URL(page.url()).search).toBe('?threshold=100000')
    await expect.poll(async () => (await tableRows(page)).length).toBe(3)
  })
})

describe('a group’s page', () => {
  it('lists the partitions of each queue, and seeks one partition to its end', async () => {
    const page = await open('/consumer-groups')
    await page.getByRole('link', { name: 'billing' }).click()
    await expect.poll(() => new URL(page.url()).pathname).toBe('/consumer-groups/billing')
    await expectText(page, 'Consumer group billing')
    // Partition | Unsettled | ...
    await expect
      .poll(async () => (await tableRows(page)).map((row) => row.split(' | ').slice(0, 2)))
      .toEqual([
        ['p1', '2'],
        ['p2', '1'],
      ])
    await screenshot(page, 'consumer-group')

    await page.getByRole('button', { name: 'Seek p1 to end' }).click()
    await confirmDialog(page, 'Seek billing to the end of cg-orders/p1?', 'Seek to end')
    await expectText(page, 'Moved billing to the end of cg-orders/p1.')
    expect(await lagOf('billing', 'cg-orders')).toEqual({ p1: 0, p2: 1 })
    await expect
      .poll(async () => (await tableRows(page)).map((row) => row.split(' | ').slice(0, 2)))
      .toEqual([
        ['p1', '0'],
        ['p2', '1'],
      ])
  })

  it('seeks a queue to a time, refusing a time the broker cannot read', async () => {
    const page = await open('/consumer-groups/billing')
    await expectText(page, 'On queue cg-orders')
    await page.getByLabel('Seek cg-orders to time').fill('last tuesday')
    await page.getByRole('button', { name: 'Seek to time' }).click()
    const dialog = page.getByRole('dialog', { name: 'Seek billing on cg-orders to last tuesday?' })
    await dialog.getByRole('button', { name: 'Seek to time', exact: true }).click()
    await expect.poll(() => dialog.getByRole('alert').innerText()).toMatch(/^timestamp: /)
    await dialog.getByRole('button', { name: 'Cancel' }).click()
    expect(await lagOf('billing', 'cg-orders')).toEqual({ p1: 0, p2: 1 })

    // Before the first message: every message is delivered to billing again.
    await page.getByLabel('Seek cg-orders to time').fill('2020-01-01T00:00:00Z')
    await page.getByRole('button', { name: 'Seek to time' }).click()
    await confirmDialog(page, 'Seek billing on cg-orders to 2020-01-01T00:00:00Z?', 'Seek to time')
    await expectText(page, 'Moved billing on cg-orders to 2020-01-01T00:00:00.000Z on 2 partition(s).')
    expect(await lagOf('billing', 'cg-orders')).toEqual({ p1: 5, p2: 4 })
  })

  it('seeks a queue to its end', async () => {
    const page = await open('/consumer-groups/reports')
    await expectText(page, 'On queue cg-orders')
    await page.getByRole('button', { name: 'Seek cg-orders to end' }).click()
    await confirmDialog(page, 'Seek reports to the end of cg-orders?', 'Seek to end')
    await expectText(page, 'Moved reports to the end of cg-orders on 2 partition(s).')
    expect(await lagOf('reports', 'cg-orders')).toEqual({ p1: 0, p2: 0 })
  })

  it('seeks with the keyboard alone', async () => {
    const page = await open('/consumer-groups/billing')
    await expectText(page, 'On queue cg-orders')
    const focused = () => page.evaluate<string>("document.activeElement?.textContent?.trim() ?? ''")
    for (let presses = 0; (await focused()) !== 'Seek p2 to end'; presses++) {
      if (presses > 40) expect.fail('Tab never reached "Seek p2 to end"')
      await page.keyboard.press('Tab')
    }
    await page.keyboard.press('Enter')
    await page.getByRole('dialog', { name: 'Seek billing to the end of cg-orders/p2?' }).waitFor()
    // Focus starts on Cancel; the next Tab is the confirm button.
    expect(await focused()).toBe('Cancel')
    await page.keyboard.press('Tab')
    expect(await focused()).toBe('Seek to end')
    await page.keyboard.press('Enter')
    await expectText(page, 'Moved billing to the end of cg-orders/p2.')
    expect((await lagOf('billing', 'cg-orders')).p2).toBe(0)
  })

  it('deletes the group after asking, back on the list', async () => {
    const page = await open('/consumer-groups/reports')
    await expectText(page, 'On queue cg-orders')
    await page.getByRole('button', { name: 'Delete group' }).click()
    const dialog = page.getByRole('dialog', { name: 'Delete consumer group reports?' })
    await dialog.waitFor()
    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'hidden' })
    expect(Object.keys((await http(broker, 'GET', '/api/v1/consumer-groups/reports')).body)).toEqual(['cg-orders'])

    await page.getByRole('button', { name: 'Delete group' }).click()
    await confirmDialog(page, 'Delete consumer group reports?', 'Delete group')
    await expect.poll(() => new URL(page.url()).pathname).toBe('/consumer-groups')
    const listed = await http(broker, 'GET', '/api/v1/consumer-groups')
    expect(listed.body.map((row: any) => row.name).sort()).toEqual(['__QUEUE_MODE__', 'billing'])
    await expect.poll(async () => (await tableRows(page)).length).toBe(2)
  })
})

const PAGES: CheckedPage[] = [
  ['consumer-groups', '/consumer-groups', 'billing'],
  ['consumer-group', '/consumer-groups/billing', 'On queue cg-orders'],
]

// The refused seek to "last tuesday" logged its 400 as a console error.
describeEveryPageChecks(() => session, PAGES, { allowedErrors: /status of 400/ })
