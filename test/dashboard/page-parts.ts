/** Reading and driving parts of a dashboard page in the tests: table rows as text, a confirmation dialog. */
import type { Page } from 'playwright-core'

/** The text of each body row of the page's tables (in `main`), cells joined by " | ". */
export function tableRows(page: Page, selector = 'main table.data'): Promise<string[]> {
  return page
    .locator(`${selector} tbody tr`)
    .evaluateAll((trs: any[]) =>
      trs.map((tr): string =>
        [...tr.querySelectorAll('td')].map((td: any) => (td.textContent ?? '').trim()).join(' | '),
      ),
    )
}

/** Presses `button` in the dialog titled `title`, and waits for the dialog to close. */
export async function confirmDialog(page: Page, title: string | RegExp, button: string): Promise<void> {
  const dialog = page.getByRole('dialog', { name: title })
  await dialog.waitFor()
  await dialog.getByRole('button', { name: button, exact: true }).click()
  await dialog.waitFor({ state: 'hidden' })
}

/**
 * The elements reaching past the right edge of the viewport, for a failure message: outside the scrolling
 * tables, or positioned absolutely (which escapes a scroll box that is not positioned itself).
 */
export async function widerThanViewport(page: Page): Promise<string> {
  const wide = await page.evaluate<string[]>(
    `[...document.querySelectorAll('body *')]
      .filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
      .filter((e) => !e.parentElement?.closest('.table-scroll') || getComputedStyle(e).position === 'absolute')
      .map((e) => e.tagName.toLowerCase() + (e.className ? '.' + String(e.className).split(' ').join('.') : '') + ' → ' + Math.round(e.getBoundingClientRect().right) + ' px')`,
  )
  return `wider than the viewport: ${wide.slice(0, 10).join('; ') || 'nothing in the body'}`
}
