/**
 * What a pane says about the freshness of its data: `updated 2s ago`, `stale: updated 1m4s ago` once the
 * route missed two ticks or failed since, `needs admin role` when the broker answered 403, or why there is
 * nothing yet.
 */
import { formatDuration } from '../format.js'
import type { RouteState } from './route-state.js'

/** A pane's freshness line. */
export interface PaneFreshness {
  text: string
  /** The data is older than two intervals, or the last request failed. */
  stale: boolean
  /** The broker refused the route with 403 (the admin role is needed). */
  forbidden: boolean
  /** There is no data to show. */
  empty: boolean
}

/** The text a pane shows instead of its data when the route needs the admin role. */
export const NEEDS_ADMIN = 'needs admin role'

/** The freshness of one route's data at `now`. */
export function paneFreshness(state: RouteState<unknown> | undefined, now: number, intervalMs: number): PaneFreshness {
  const failure = state?.failure
  const forbidden = failure?.kind === 'forbidden'
  if (forbidden) return { text: NEEDS_ADMIN, stale: true, forbidden, empty: true }
  if (state?.okAt === undefined) {
    return {
      text: failure ? `no answer yet: ${failure.message}` : 'loading…',
      stale: failure !== undefined,
      forbidden,
      empty: true,
    }
  }
  const age = Math.max(0, now - state.okAt)
  const stale = failure !== undefined || age > 2 * intervalMs + 1000
  const ago = age < 1000 ? 'just now' : `${formatDuration(age)} ago`
  return { text: stale ? `stale: updated ${ago}` : `updated ${ago}`, stale, forbidden, empty: false }
}
