/**
 * The replicas page of a meshed pair (test/support/mesh-cluster.ts) in a real Chromium: broker rep-a's page
 * shows its peer rep-b connected with a round trip, and each replica's parked consumers from the per-minute
 * metrics, with a long-poll of the public JavaScript client parked on rep-b. It fits 375 px, axe-core finds
 * nothing serious, and no request leaves loopback. The page of a broker without a mesh is in insights.test.ts.
 */
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { closeQueen, openQueen } from '../compat/client.js'
import { meshConnected, startMeshCluster, type MeshCluster } from '../support/mesh-cluster.js'
import {
  closeBrowser,
  expectText,
  launchBrowser,
  offLoopback,
  openPage,
  screenshot,
  scrollsSideways,
  seriousAccessibilityFindings,
  unexpectedErrors,
  type RecordedPage,
} from './browser.js'

let browser: Browser
let cluster: MeshCluster
let queen: any
const opened: RecordedPage[] = []

async function open(target: string, options: Parameters<typeof openPage>[1] = {}) {
  const recorded = await openPage(browser, options)
  opened.push(recorded)
  await recorded.page.goto(`${cluster.brokers[0]!.url}${target}`)
  return recorded.page
}

beforeAll(async () => {
  browser = await launchBrowser()
  cluster = await startMeshCluster({
    names: ['rep-a', 'rep-b'],
    secret: 'replicas-page-secret-0123456789',
    label: 'dash_replicas',
  })
  await meshConnected(cluster.brokers)
  const [a, b] = cluster.brokers as [(typeof cluster.brokers)[0], (typeof cluster.brokers)[0]]
  // A long-poll of the client parked on rep-b while both replicas write their per-minute metrics.
  queen = await openQueen(b)
  await queen.queue('rep-idle').create()
  const parked = queen.queue('rep-idle').batch(1).wait(true).timeoutMillis(20_000).pop()
  const deadline = Date.now() + 10_000
  while (b.services.waiters.parked !== 1) {
    if (Date.now() > deadline) throw new Error('the long-poll never parked on rep-b')
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  await a.services.observability.metricsJob.runOnce()
  await b.services.observability.metricsJob.runOnce()
  await queen.queue('rep-idle').push([{ data: { wake: true } }])
  await parked
}, 60_000)
afterAll(async () => {
  await closeBrowser(browser)
  await closeQueen(queen)
  await cluster?.close()
})

describe('the replicas page of a meshed pair', () => {
  it("shows rep-a's peer connected with its round trip, and each replica's parked consumers", async () => {
    const page = await open('/replicas')
    await expectText(page, 'Peers connected')
    const peerRow = page.locator('section', { has: page.getByRole('heading', { name: 'Mesh' }) }).locator('tbody tr', {
      hasText: 'rep-b',
    })
    await expect.poll(() => peerRow.locator('td').nth(2).innerText()).toBe('connected')
    expect(await peerRow.locator('td').nth(3).innerText()).toMatch(/^\d+(\.\d)? ms$/)
    expect(await page.locator('.tile', { hasText: 'This replica' }).locator('dd').first().innerText()).toBe('rep-a')
    expect(await page.locator('.tile', { hasText: 'Peers connected' }).locator('dd').first().innerText()).toBe('1 of 1')
    const parked = page.locator('section', {
      has: page.getByRole('heading', { name: /^Parked consumers per replica/ }),
    })
    await expect
      .poll(async () => (await parked.locator('table.data tbody tr').allInnerTexts()).map((row) => row.split('\t').slice(0, 3)))
      .toEqual([
        ['rep-a', '0', '0'],
        ['rep-b', '1', '1'],
      ])
    expect(await parked.locator('.chart').getAttribute('aria-label')).toMatch(/now: rep-a 0, rep-b 1$/)
    await screenshot(page, 'replicas')
  })

  it('fits 375 px, and has no serious axe findings in either theme', async () => {
    const narrow = await open('/replicas', { width: 375, height: 800 })
    await expectText(narrow, 'Peers connected')
    expect(await scrollsSideways(narrow)).toBe(false)
    await screenshot(narrow, 'replicas-375px')
    for (const colorScheme of ['light', 'dark'] as const) {
      const page = await open('/replicas', { colorScheme })
      await expectText(page, 'Peers connected')
      expect(await seriousAccessibilityFindings(page)).toEqual([])
    }
  })

  it('sent no request off loopback and logged no error', () => {
    expect(offLoopback(opened.flatMap((recorded) => recorded.requests))).toEqual([])
    expect(opened.flatMap((recorded) => unexpectedErrors(recorded.errors))).toEqual([])
  })
})
