/**
 * The checks every dashboard page passes, as one block of tests for a test file's pages: it fits a 375-px
 * screen without scrolling sideways, axe-core finds nothing serious or critical in the light and dark
 * themes, and (after the file's other tests) no request left loopback and nothing but the refusals the file
 * provoked (`allowedErrors`) was logged. Screenshots of each page at 375 px and in the dark theme.
 */
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import {
  expectText,
  offLoopback,
  screenshot,
  scrollsSideways,
  seriousAccessibilityFindings,
  unexpectedErrors,
  type DashboardSession,
} from './browser.js'
import { widerThanViewport } from './page-parts.js'

/** A page to check: its screenshot name, its path, and a text that shows it has loaded its data. */
export type CheckedPage = readonly [name: string, target: string, text: string]

export function describeEveryPageChecks(
  session: () => DashboardSession,
  pages: readonly CheckedPage[],
  options: {
    /** Runs on each page once loaded, before its checks (opening a form, so it is checked too). */
    prepare?: (name: string, page: Page) => Promise<void>
    /** Console errors the file provoked on purpose (a refusal's status). */
    allowedErrors?: RegExp
  } = {},
): void {
  const prepare = options.prepare ?? (() => Promise.resolve())
  describe('on a phone and for everyone', () => {
    it.each(pages)('the %s page fits 375 px without scrolling sideways', async (name, target, text) => {
      const page = await session().open(target, { width: 375, height: 800 })
      await expectText(page, text)
      await prepare(name, page)
      expect(await scrollsSideways(page), await widerThanViewport(page)).toBe(false)
      await screenshot(page, `${name}-375px`)
    })

    for (const theme of ['light', 'dark'] as const) {
      it.each(pages)(
        `the %s page has no serious or critical axe findings in the ${theme} theme`,
        async (name, target, text) => {
          const page = await session().open(target, { colorScheme: theme })
          await expectText(page, text)
          expect(await seriousAccessibilityFindings(page)).toEqual([])
          await prepare(name, page)
          expect(await seriousAccessibilityFindings(page)).toEqual([])
          if (theme === 'dark') await screenshot(page, `${name}-dark`)
        },
      )
    }

    it('sent no request off loopback and logged no error it did not provoke', () => {
      const opened = session().opened
      const all = opened.flatMap((recorded) => recorded.requests)
      expect(all.length).toBeGreaterThan(20)
      expect(offLoopback(all)).toEqual([])
      const errors = opened.flatMap((recorded) => unexpectedErrors(recorded.errors))
      expect(errors.filter((text) => options.allowedErrors === undefined || !options.allowedErrors.test(text))).toEqual(
        [],
      )
    })
  })
}
