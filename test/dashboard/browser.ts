/**
 * A real headless Chromium for the dashboard's tests: Debian's /usr/bin/chromium (CI installs it: .ci/run)
 * driven by playwright-core, against a test broker serving the real build (dist/dashboard, `npm run build`).
 * Every page records every request it makes and every Content-Security-Policy complaint, so a test can fail
 * on a request that leaves loopback or on something the policy blocked.
 */
import { existsSync } from 'node:fs'
import { mkdir, readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import path from 'node:path'
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core'
import { expect } from 'vitest'
import { BUILT_DASHBOARD_DIR } from '../../src/broker/http/dashboard-files.js'
import { CLIENT_AVAILABLE, CLIENT_DIR, closeQueen, openQueen } from '../compat/client.js'
import { startTestBroker, type TestBroker } from '../support/broker.js'
import { REPO_ROOT } from '../support/cli-harness.js'
import { trackResource } from '../support/resources.js'

/** Debian's chromium; CHROMIUM_PATH overrides it. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

/** Where screenshots go (gitignored); the overview's is also copied into docs/images/. */
export const SCREENSHOTS = path.join(REPO_ROOT, 'test-results', 'dashboard')

/**
 * Launches Chromium, failing (never skipping) with what to do when it or the dashboard build is missing.
 * Registered with the leak check until {@link closeBrowser}.
 */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `the dashboard tests need Chromium at ${CHROMIUM}: install it (apt-get install chromium; .ci/run does) or set CHROMIUM_PATH`,
    )
  }
  if (!existsSync(path.join(BUILT_DASHBOARD_DIR, 'index.html'))) {
    throw new Error(`the dashboard is not built at ${BUILT_DASHBOARD_DIR}: run npm run build`)
  }
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] })
  const untrack = trackResource('chromium')
  browser.on('disconnected', untrack)
  return browser
}

/** A page and what it asked for. */
export interface RecordedPage {
  page: Page
  context: BrowserContext
  /** Every URL the page requested, in order. */
  requests: string[]
  /** Console errors and page errors (a blocked inline script or style shows here). */
  errors: string[]
}

/** A fresh context (its own storage) and page, recording requests and errors. */
export async function openPage(
  browser: Browser,
  options: { width?: number; height?: number; colorScheme?: 'light' | 'dark' } = {},
): Promise<RecordedPage> {
  const context = await browser.newContext({
    viewport: { width: options.width ?? 1280, height: options.height ?? 900 },
    colorScheme: options.colorScheme ?? 'light',
  })
  const page = await context.newPage()
  const requests: string[] = []
  const errors: string[] = []
  page.on('request', (request) => requests.push(request.url()))
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text())
  })
  page.on('pageerror', (error) => errors.push(error.message))
  return { page, context, requests, errors }
}

/** Requests to anything but loopback (data: and about: URLs are not requests to a host). */
export function offLoopback(requests: readonly string[]): string[] {
  return requests.filter((url) => {
    if (url.startsWith('data:') || url.startsWith('about:')) return false
    const host = new URL(url).hostname
    return host !== '127.0.0.1' && host !== 'localhost' && host !== '[::1]'
  })
}

/** Errors other than the failed requests a test provoked on purpose (401 answers show as console errors). */
export function unexpectedErrors(errors: readonly string[]): string[] {
  return errors.filter((text) => !/the server responded with a status of (401|403)/.test(text))
}

const axeSource = readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

/** axe-core's serious and critical findings on the page as it is, one line each. */
export async function seriousAccessibilityFindings(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol: the page's Content-Security-Policy (rightly) refuses a script tag.
  if (!(await page.evaluate<boolean>("'axe' in window"))) await page.evaluate(await axeSource)
  const results = await page.evaluate<any>('axe.run(document)')
  return (results.violations as any[])
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) =>
        `${violation.impact} ${violation.id}: ${violation.help} (${violation.nodes
          .slice(0, 3)
          .map((node: any) => node.target.join(' '))
          .join('; ')})`,
    )
}

/** Whether the page scrolls sideways (its content is wider than the viewport). */
export function scrollsSideways(page: Page): Promise<boolean> {
  return page.evaluate<boolean>('document.documentElement.scrollWidth > document.documentElement.clientWidth')
}

/** Saves a screenshot of the whole page under test-results/dashboard/. */
export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir(SCREENSHOTS, { recursive: true })
  const file = path.join(SCREENSHOTS, `${name}.png`)
  await page.screenshot({ path: file, fullPage: true })
  return file
}

/** Closes the browser opened by {@link launchBrowser}; tolerates undefined. */
export async function closeBrowser(browser: Browser | undefined): Promise<void> {
  await browser?.close()
}

/** Fails with the page's text when `check` does not hold within `timeoutMs`. */
export async function expectText(page: Page, text: string | RegExp, timeoutMs = 10_000): Promise<void> {
  try {
    await page.getByText(text).first().waitFor({ state: 'visible', timeout: timeoutMs })
  } catch (error) {
    const body = await page.locator('body').innerText()
    expect.fail(`"${String(text)}" never appeared; the page shows:\n${body}\n(${(error as Error).message})`)
  }
}

/** What a dashboard test file works with: a browser, a broker, the JavaScript client on it, and its pages. */
export interface DashboardSession {
  browser: Browser
  broker: TestBroker
  /** The public Queen JavaScript client on the broker, for traffic. */
  queen: any
  /** Every page opened through {@link DashboardSession.open}, for the checks at the end of a file. */
  opened: RecordedPage[]
  /** Opens `target` (a path of the broker) in a fresh context. */
  open(target: string, options?: Parameters<typeof openPage>[1]): Promise<Page>
  close(): Promise<void>
}

/**
 * Chromium, a test broker serving the real build, and the JavaScript client on it (`clientOptions`, e.g. a
 * bearer token). Fails, never skips, when the client is missing: the pages must show traffic it made.
 */
export async function startDashboardSession(
  brokerOptions: Parameters<typeof startTestBroker>[0],
  clientOptions: Record<string, unknown> = {},
): Promise<DashboardSession> {
  if (!CLIENT_AVAILABLE)
    throw new Error(`the dashboard tests push through the Queen JavaScript client: none at ${CLIENT_DIR}`)
  const browser = await launchBrowser()
  const broker = await startTestBroker(brokerOptions)
  const queen = await openQueen(broker, clientOptions)
  const opened: RecordedPage[] = []
  return {
    browser,
    broker,
    queen,
    opened,
    async open(target, options = {}) {
      const recorded = await openPage(browser, options)
      opened.push(recorded)
      await recorded.page.goto(`${broker.url}${target}`)
      return recorded.page
    },
    async close() {
      await closeBrowser(browser)
      await closeQueen(queen)
      await broker.close()
    },
  }
}

/** The value of the tile labelled `label` (the overview's and the queue page's counters). */
export function tileValue(page: Page, label: string): Promise<string> {
  return page
    .locator('.tile', { has: page.locator('dt', { hasText: new RegExp(`^${label}$`) }) })
    .locator('dd')
    .innerText()
}
