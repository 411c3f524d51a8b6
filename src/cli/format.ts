/**
 * Pure formatters for terminal output (docs/cli.md, "Output formats"): comma-grouped counts, byte sizes, ages
 * ("3 minutes ago"), short durations (`1h4m`), and `-` for null or empty values. Used by the table and
 * detail renderers of output.ts; each takes `now` where time matters, so tests need no clock.
 */

/** What a table cell shows for null, undefined or an empty string. */
export const EMPTY_CELL = '-'

/** `1234567` → `1,234,567`; non-finite numbers and null → `-`. */
export function formatCount(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return EMPTY_CELL
  const sign = value < 0 ? '-' : ''
  const [whole = '0', fraction] = Math.abs(value).toString().split('.')
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')
  return fraction === undefined ? `${sign}${grouped}` : `${sign}${grouped}.${fraction}`
}

const BYTE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'] as const

/** `0` → `0 B`, `1536` → `1.5 KiB`, `67108864` → `64.0 MiB` (binary units, one decimal above bytes). */
export function formatBytes(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value) || value < 0) return EMPTY_CELL
  let unit = 0
  let scaled = value
  while (scaled >= 1024 && unit < BYTE_UNITS.length - 1) {
    scaled /= 1024
    unit += 1
  }
  return unit === 0 ? `${value} B` : `${scaled.toFixed(1)} ${BYTE_UNITS[unit]}`
}

const DURATION_UNITS: readonly [suffix: string, ms: number][] = [
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['m', 60_000],
  ['s', 1000],
]

/**
 * A duration in its two largest units: `250ms`, `45s`, `3m20s`, `1h4m`, `2d3h`. Negative or non-finite
 * values → `-`.
 */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms) || ms < 0) return EMPTY_CELL
  if (ms < 1000) return `${Math.round(ms)}ms`
  let rest = Math.floor(ms)
  const parts: string[] = []
  for (const [suffix, size] of DURATION_UNITS) {
    if (parts.length === 2) break
    const amount = Math.floor(rest / size)
    rest -= amount * size
    if (amount > 0 || parts.length > 0) parts.push(`${amount}${suffix}`)
  }
  // `1h0m` reads worse than `1h`.
  if (parts.length === 2 && parts[1]!.startsWith('0')) parts.pop()
  return parts.join('')
}

const AGE_UNITS: readonly [singular: string, ms: number][] = [
  ['year', 365 * 86_400_000],
  ['month', 30 * 86_400_000],
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
  ['second', 1000],
]

/**
 * A timestamp relative to `now`: `just now` (under a second), `1 second ago`, `3 minutes ago`,
 * `2 hours ago`, `in 5 minutes`. Accepts epoch ms, a Date or an ISO string; unparsable or null → `-`.
 */
export function formatAge(value: number | string | Date | null | undefined, now: number = Date.now()): string {
  if (value === null || value === undefined || value === '') return EMPTY_CELL
  const time = value instanceof Date ? value.getTime() : typeof value === 'number' ? value : Date.parse(value)
  if (!Number.isFinite(time)) return EMPTY_CELL
  const delta = now - time
  const magnitude = Math.abs(delta)
  if (magnitude < 1000) return 'just now'
  for (const [singular, size] of AGE_UNITS) {
    if (magnitude >= size) {
      const amount = Math.floor(magnitude / size)
      const text = `${amount} ${singular}${amount === 1 ? '' : 's'}`
      return delta >= 0 ? `${text} ago` : `in ${text}`
    }
  }
  return 'just now'
}

/** Epoch ms → `YYYY-MM-DDTHH:MM:SS.mmmZ`; null or invalid → null. */
export function isoTime(ms: number | null | undefined): string | null {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return null
  return new Date(ms).toISOString()
}

/** Shortens text to `max` characters with a trailing `…` (for payloads in tables). */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text
  return `${text.slice(0, Math.max(0, max - 1))}…`
}

/** `on` / `off` for a flag; null or undefined → `-`. */
export function onOff(value: boolean | null | undefined): string {
  if (value === null || value === undefined) return EMPTY_CELL
  return value ? 'on' : 'off'
}
