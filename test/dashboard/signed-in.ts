/**
 * For the dashboard tests that run against a broker with JWT on: a session whose client pushes with a
 * read-write token, pages opened already signed in with a given token (the tab's sessionStorage, as the
 * sign-in form leaves it: docs/dashboard.md, "Security"), and API reads as the admin.
 */
import type { Page } from 'playwright-core'
import { expect } from 'vitest'
import { hsToken, SECRET } from '../broker/auth/tokens.js'
import { http } from '../support/broker.js'
import { offLoopback, openPage, startDashboardSession, unexpectedErrors, type DashboardSession } from './browser.js'

/** A session on a JWT broker, with an admin and a read-only token. */
export interface SignedInSession extends DashboardSession {
  admin: string
  readOnly: string
  /** Opens `target` in a fresh context whose tab holds `token` (the admin's by default). */
  openAs(target: string, options?: Parameters<typeof openPage>[1] & { token?: string }): Promise<Page>
  /** A request to the broker's API as the admin; fails on a status other than `expected`. */
  api(method: string, path: string, body?: unknown, expected?: number): Promise<any>
}

export async function startSignedInSession(label: string): Promise<SignedInSession> {
  const admin = await hsToken({ sub: 'ops', role: 'admin' })
  const readOnly = await hsToken({ sub: 'viewer', role: 'read-only' })
  const session = await startDashboardSession(
    { label, config: { auth: { enabled: true, secret: SECRET } } },
    { bearerToken: await hsToken({ sub: 'app', role: 'read-write' }) },
  )
  return {
    ...session,
    admin,
    readOnly,
    async openAs(target, options = {}) {
      const { token = admin, ...view } = options
      const recorded = await openPage(session.browser, view)
      session.opened.push(recorded)
      await recorded.context.addInitScript(`sessionStorage.setItem('queen.token', ${JSON.stringify(token)})`)
      await recorded.page.goto(`${session.broker.url}${target}`)
      return recorded.page
    },
    async api(method, path, body, expected = 200) {
      const answer = await http(session.broker, method, path, body, { authorization: `Bearer ${admin}` })
      expect(answer.status, `${method} ${path}: ${JSON.stringify(answer.body)}`).toBe(expected)
      return answer.body
    },
  }
}

/** Presses Tab until the focused element's label or text starts with (or matches) `name`; fails after 40 presses. */
export async function tabTo(page: Page, name: string | RegExp): Promise<void> {
  for (let presses = 0; presses < 40; presses++) {
    await page.keyboard.press('Tab')
    // A field by its label, a region by its aria-label, a link or button by its text.
    const text = await page.evaluate<string>(`(() => {
      const el = document.activeElement
      const label = el?.labels?.[0]?.textContent ?? el?.getAttribute('aria-label') ?? el?.textContent ?? ''
      return label.trim()
    })()`)
    if (typeof name === 'string' ? text.startsWith(name) : name.test(text)) {
      const outline = await page.evaluate<string>('getComputedStyle(document.activeElement).outlineStyle')
      expect(outline, `the focus on "${text}" is visible`).not.toBe('none')
      return
    }
  }
  expect.fail(`Tab never reached "${String(name)}"`)
}

/** The checks at the end of a file: the pages made requests, none left loopback, and none logged an error. */
export function expectQuietBrowser(session: DashboardSession): void {
  const all = session.opened.flatMap((recorded) => recorded.requests)
  expect(all.length).toBeGreaterThan(20)
  expect(offLoopback(all)).toEqual([])
  expect(session.opened.flatMap((recorded) => unexpectedErrors(recorded.errors))).toEqual([])
}
