/**
 * `from`, `to` and `interval` of the status and analytics routes (docs/http-api.md, "Status and analytics"): ISO 8601
 * timestamps (or `now`), `from` before `to`, a named interval, and a cap on the points a series may have. Every mistake
 * is a 400 naming the parameter (docs/http-api.md, "Query and path parameters").
 */
import { validationError } from '../../errors.js'
import { bucketMinutesFor, MAX_POINTS, NAMED_INTERVAL_MINUTES, type IntervalName } from '../../observe/time-buckets.js'
import { queryValue, type Query } from './query.js'
import { checkTimestamp } from './rules.js'

/** A validated time range. */
export interface TimeRange {
  from: Date
  to: Date
}

/** One hour, the default range of most routes. */
export const HOUR_MS = 3_600_000

/** The longest range accepted: per-minute metrics are kept 90 days by default, at most a few years. */
const MAX_RANGE_MS = 3 * 366 * 86_400_000

/** `from`/`to`, defaulting to the `defaultRangeMs` before now. */
export function parseTimeRange(query: Query, defaultRangeMs: number, now: number = Date.now()): TimeRange {
  const rawFrom = queryValue(query, 'from')
  const rawTo = queryValue(query, 'to')
  const to = rawTo === undefined ? new Date(now) : checkTimestamp(rawTo, 'to', { allowNow: true })
  const from =
    rawFrom === undefined
      ? new Date(to.getTime() - defaultRangeMs)
      : checkTimestamp(rawFrom, 'from', { allowNow: true })
  if (from.getTime() > to.getTime()) throw validationError('from: must not be later than to')
  if (to.getTime() - from.getTime() > MAX_RANGE_MS) throw validationError('from: the range must not exceed 3 years')
  return { from, to }
}

/** The named `interval` (`minute`, `hour`, `day`), or undefined when absent. */
export function parseInterval(query: Query): IntervalName | undefined {
  const raw = queryValue(query, 'interval')
  if (raw === undefined) return undefined
  if (!Object.hasOwn(NAMED_INTERVAL_MINUTES, raw)) throw validationError('interval: must be minute, hour or day')
  return raw as IntervalName
}

/**
 * The bucket width in minutes: the named interval when given, else chosen from the range. An interval too
 * fine for the range (more than MAX_POINTS buckets) is a 400 rather than a response of unbounded size.
 */
export function bucketMinutes(range: TimeRange, interval: IntervalName | undefined): number {
  const rangeMs = range.to.getTime() - range.from.getTime()
  if (interval === undefined) return bucketMinutesFor(rangeMs)
  const minutes = NAMED_INTERVAL_MINUTES[interval]
  if (rangeMs / (minutes * 60_000) > MAX_POINTS) {
    throw validationError(`interval: ${interval} buckets over this range give more than ${MAX_POINTS} points`)
  }
  return minutes
}

/** `timeRange` as the routes answer it. */
export function timeRangeBody(range: TimeRange): { from: string; to: string } {
  return { from: range.from.toISOString(), to: range.to.toISOString() }
}
