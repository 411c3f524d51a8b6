/** Units of the system, analytics and replicas pages: bytes, percentages, milliseconds, ages. */
import { formatDuration } from './format'

const decimal = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 })

/** 1.5 GB, 312 MB, 12 kB, 900 B (powers of 1024). */
export function formatBytes(bytes: number): string {
  const units = ['B', 'kB', 'MB', 'GB', 'TB']
  let value = bytes
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit += 1
  }
  return `${decimal.format(value)} ${units[unit]}`
}

/** 12.5 % (a ratio of 0..1 when `ratio`, else already a percentage); – for null. */
export function formatPercent(value: number | null, options: { ratio?: boolean } = {}): string {
  if (value === null) return '–'
  return `${decimal.format(options.ratio ? value * 100 : value)} %`
}

/** 12.3 ms; – for null. */
export function formatMs(value: number | null): string {
  return value === null ? '–' : `${decimal.format(value)} ms`
}

/** "5 min 3 s ago", or "never" for null. */
export function formatAgo(timestamp: string | null, now = Date.now()): string {
  if (timestamp === null) return 'never'
  return `${formatDuration(Math.max(0, (now - Date.parse(timestamp)) / 1000))} ago`
}
