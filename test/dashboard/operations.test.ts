/**
 * The operations page (docs/dashboard.md, "What it shows") in a real Chromium against a live broker with
 * traffic through the public JavaScript client: per-queue paces, failures and lag as the broker's analytics
 * answer them, a pop parked on the replica, the dead letters with their top error, the error counters and
 * the work waiting; the window in the URL; a new dead letter shown by the live refresh; the keyboard alone;
 * 375 px, axe-core in both themes, screenshots, no request off loopback.
 */
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { http, type TestBroker } from '../support/broker.js'
import { expectText, screenshot, startDashboardSession, tileValue, type DashboardSession } from './browser.js'
import { describeEveryPageChecks } from './page-checks.js'
import { tableRows } from './page-parts.js'
import { pushTo } from './traffic.js'

let session: DashboardSession
let broker: TestBroker
let queen: any

/** The cells of the row of `first` in the table captioned `caption`. */
async function rowOf(page: Page, caption: string, first: string): Promise<string[] | undefined> {
  const rows = await tableRows(page, `main table.data:has(caption:text-is("${caption}"))`)
  return rows.map((row) => row.split(' | ')).find((cells) => cells[0] === first)
}

/** Pops `count` messages of op-orders and fails the first `fail` of them with `error`, acking the rest. */
async function popAndSettle(count: number, fail: number, error: string): Promise<void> {
  const messages = await queen.queue('op-orders').batch(count).wait(false).pop()
  expect(messages).toHaveLength(count)
  for (const [index, message] of messages.entries()) {
    await queen.ack(message, index >= fail, index < fail ? { error } : {})
  }
}

beforeAll(async () => {
  session = await startDashboardSession({ label: 'dashboard_operations' })
  ;({ broker, queen } = session)
  // A failed delivery dead-letters at once on op-orders.
  const configured = await http(broker, 'POST', '/api/v1/configure', { queue: 'op-orders', options: { retryLimit: 0 } })
  expect(configured.status).toBe(200)
  await pushTo(queen, 'op-orders', ['p1'], 5)
  await pushTo(queen, 'op-audit', ['Default'], 2)
  await popAndSettle(3, 1, 'card declined')
  // A long-poll parked on the replica while the minute's metrics are written.
  expect((await http(broker, 'POST', '/api/v1/configure', { queue: 'op-idle' })).status).toBe(200)
  const parked = http(broker, 'GET', '/api/v1/pop/queue/op-idle?wait=true&timeout=10000')
  for (let waited = 0; broker.services.waiters.parked !== 1; waited += 20) {
    if (waited > 5000) throw new Error('the long-poll never parked')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  await broker.services.observability.metricsJob.runOnce()
  await pushTo(queen, 'op-idle', ['Default'], 1)
  expect((await parked).body.messages).toHaveLength(1)
  await broker.services.observability.statsJob.runOnce()
})
afterAll(async () => {
  await session?.close()
})

describe('the operations page', () => {
  it('shows each queue’s pace, failures and lag as the broker’s analytics answer them', async () => {
    const page = await session.open('/operations')
    await expect.poll(() => page.title()).toBe('Operations · Queen')
    const caption = 'Per-queue rates and lag over the last 1h'
    await expect.poll(() => rowOf(page, caption, 'op-orders')).toBeDefined()
    const ops = (await http(broker, 'GET', '/api/v1/analytics/queue-ops')).body
    const orders = ops.queues.find((row: any) => row.queueName === 'op-orders')
    expect(orders).toMatchObject({ push: 5, pop: 3, dlq: 1 })
    // Queue | Push | Pop | Ack | Failed | Dead-lettered | Avg lag | Max lag | trend
    const cells = await rowOf(page, caption, 'op-orders')
    expect(cells?.slice(0, 3)).toEqual(['op-orders', '5/h', '3/h'])
    expect(cells?.slice(4, 6)).toEqual([String(orders.failed), '1'])
    expect(cells?.[6]).toMatch(/^\d+ ms$|^\d+\.\d s$/)
    expect(
      await page.getByRole('img', { name: /^op-orders: largest lag at delivery per bucket, up to / }).count(),
    ).toBe(1)
    expect((await rowOf(page, caption, 'op-audit'))?.slice(0, 3)).toEqual(['op-audit', '2/h', '0/s'])
    expect((await rowOf(page, caption, 'op-audit'))?.slice(6, 9)).toEqual(['–', '–', 'no pops'])
  })

  it('shows the pops parked per replica, the dead letters, the errors and the work waiting', async () => {
    const page = await session.open('/operations')
    await expect
      .poll(() => rowOf(page, 'Long-polling pops parked on each replica', 'test-broker'))
      .toEqual(['test-broker', '1', '1', ''])
    expect(await tileValue(page, 'Dead letters')).toBe('1')
    expect(await tileValue(page, 'Partitions with dead letters')).toBe('1')
    await expectText(page, /^1 × card declined$/)
    const status = (await http(broker, 'GET', '/api/v1/status')).body
    expect(await tileValue(page, 'Failed acks')).toBe(String(status.errors.ackFailed))
    expect(await tileValue(page, 'Database errors')).toBe(String(status.errors.dbErrors))
    const buffers = (await http(broker, 'GET', '/api/v1/status/buffers')).body
    expect(await tileValue(page, 'Spool records to replay')).toBe(String(buffers.pending))
    expect(await tileValue(page, 'Spool state')).toBe(buffers.state)
    expect(await tileValue(page, 'Waiting for a connection')).toBe('0')
    expect(await tileValue(page, 'Connections idle')).toMatch(/^\d+ of 10$/)
    expect(await page.getByRole('link', { name: 'Open the dead-letter queue' }).getAttribute('href')).toBe('/dlq')
    await screenshot(page, 'operations')
  })

  it('shows a new dead letter on its own, and takes its window from the URL', async () => {
    const page = await session.open('/operations?window=6h')
    await expectText(page, 'Queues, last 6h')
    expect(await page.locator('[aria-current="true"]').innerText()).toBe('6h')
    await expect.poll(() => tileValue(page, 'Dead letters')).toBe('1')
    await popAndSettle(1, 1, 'address unknown')
    await broker.services.observability.statsJob.runOnce()
    await expect.poll(() => tileValue(page, 'Dead letters'), { timeout: 6000 }).toBe('2')
    await expectText(page, /^1 × address unknown$/)
    await page.getByRole('link', { name: '24h', exact: true }).click()
    await expect.poll(() => new URL(page.url()).search).toBe('?window=24h')
    await expectText(page, 'Queues, last 24h')
  })

  it('is reached and switched with the keyboard alone', async () => {
    const page = await session.open('/')
    await expectText(page, 'Top queues by pending')
    const focused = () => page.evaluate<string>("document.activeElement?.textContent?.trim() ?? ''")
    const tabTo = async (name: string) => {
      for (let presses = 0; (await focused()) !== name; presses++) {
        if (presses > 30) expect.fail(`Tab never reached "${name}"`)
        await page.keyboard.press('Tab')
      }
    }
    await tabTo('Operations')
    await page.keyboard.press('Enter')
    await expect.poll(() => new URL(page.url()).pathname).toBe('/operations')
    await expectText(page, 'Queues, last 1h')
    await tabTo('24h')
    await page.keyboard.press('Enter')
    await expectText(page, 'Queues, last 24h')
  })
})

describeEveryPageChecks(() => session, [['operations', '/operations', 'op-orders']])
