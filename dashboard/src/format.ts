/** Number and time formats of the dashboard. */

const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 })
const rate = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 })

/** 12,345 */
export function formatCount(value: number): string {
  return integer.format(value)
}

/** 12.3/s */
export function formatRate(value: number): string {
  return `${rate.format(value)}/s`
}

/** 3 h 12 min, 5 min 3 s, 42 s */
export function formatDuration(seconds: number): string {
  if (seconds >= 86_400) return `${Math.floor(seconds / 86_400)} d ${Math.floor((seconds % 86_400) / 3600)} h`
  if (seconds >= 3600) return `${Math.floor(seconds / 3600)} h ${Math.floor((seconds % 3600) / 60)} min`
  if (seconds >= 60) return `${Math.floor(seconds / 60)} min ${Math.floor(seconds % 60)} s`
  return `${Math.floor(seconds)} s`
}

/** 14:03:09 */
export function formatClock(date: Date): string {
  return date.toLocaleTimeString('en-GB', { hour12: false })
}
