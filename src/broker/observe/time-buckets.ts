/**
 * Time buckets of the status and analytics series (docs/http-api.md, "Status and analytics"): the bucket width chosen
 * from a range, the named intervals of `/status/analytics`, and the bucket timestamp format without fraction
 * ("Timestamps").
 */

/** Minutes per named interval (`interval=minute|hour|day`). */
export const NAMED_INTERVAL_MINUTES = { minute: 1, hour: 60, day: 1440 } as const

/** A named interval. */
export type IntervalName = keyof typeof NAMED_INTERVAL_MINUTES

/** Widths a range is divided into, narrowest first (minutes). */
const BUCKET_WIDTHS_MINUTES = [1, 5, 15, 60, 360, 1440] as const

/** At most this many points per series when the width is chosen from the range. */
export const TARGET_POINTS = 240

/** Most points a caller may ask for with an explicit interval; beyond it the request is a 400. */
export const MAX_POINTS = 10_000

/**
 * The narrowest bucket width (minutes) that divides `rangeMs` into at most {@link TARGET_POINTS} buckets:
 * one hour gives 1-minute buckets, a day 15-minute buckets, a week 60-minute buckets.
 */
export function bucketMinutesFor(rangeMs: number): number {
  for (const width of BUCKET_WIDTHS_MINUTES) {
    if (rangeMs / (width * 60_000) <= TARGET_POINTS) return width
  }
  return BUCKET_WIDTHS_MINUTES[BUCKET_WIDTHS_MINUTES.length - 1]!
}

/**
 * The named interval of `/status/analytics` when none is given: minutes up to 4 hours, hours up to a week,
 * days beyond, so the default (last 24 h) answers 24 hourly points.
 */
export function namedIntervalFor(rangeMs: number): IntervalName {
  if (rangeMs <= 4 * 3_600_000) return 'minute'
  if (rangeMs <= 7 * 86_400_000) return 'hour'
  return 'day'
}

/** `YYYY-MM-DDTHH:MM:SSZ`: analytics bucket timestamps carry no fraction (docs/http-api.md, "Timestamps"). */
export function bucketTimestamp(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z')
}

/** Start of the UTC minute holding `epochMs`, as epoch milliseconds. */
export function minuteOf(epochMs: number): number {
  return epochMs - (epochMs % 60_000)
}
