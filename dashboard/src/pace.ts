/** A count over a window as a pace people can read: per second when at least 1/s, else per minute or hour. */
const one = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 })

/** 12.3/s, 4.5/min, 0.2/h; 0/s for nothing. */
export function formatPace(count: number, seconds: number): string {
  if (count === 0 || seconds <= 0) return '0/s'
  const perSecond = count / seconds
  if (perSecond >= 1) return `${one.format(perSecond)}/s`
  if (perSecond * 60 >= 0.1) return `${one.format(perSecond * 60)}/min`
  return `${one.format(perSecond * 3600)}/h`
}
