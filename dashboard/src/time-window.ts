/**
 * The time windows of the overview, analytics, system and replicas pages (1h, 6h, 24h, in the URL as
 * `?window=`), and the `from`/`to` query of a window ending now.
 */
import type { TimeWindow } from './router'

/** Milliseconds of each window. */
export const WINDOW_MS: Record<TimeWindow, number> = { '1h': 3_600_000, '6h': 21_600_000, '24h': 86_400_000 }

/** `from` and `to` of the window ending now, as the series routes take them. */
export function windowQuery(span: TimeWindow, extra: Record<string, string> = {}): string {
  const to = new Date()
  const from = new Date(to.getTime() - WINDOW_MS[span])
  return new URLSearchParams({ from: from.toISOString(), to: to.toISOString(), ...extra }).toString()
}
