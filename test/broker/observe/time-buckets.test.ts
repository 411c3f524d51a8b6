import { describe, expect, it } from 'vitest'
import {
  bucketMinutesFor,
  bucketTimestamp,
  minuteOf,
  namedIntervalFor,
  TARGET_POINTS,
} from '../../../src/broker/observe/time-buckets.js'

const HOUR = 3_600_000
const DAY = 24 * HOUR

describe('bucketMinutesFor', () => {
  it.each([
    [0, 1],
    [HOUR, 1],
    [4 * HOUR, 1],
    [5 * HOUR, 5],
    [DAY, 15],
    [7 * DAY, 60],
    [30 * DAY, 360],
    [90 * DAY, 1440],
    [3 * 366 * DAY, 1440],
  ])('divides %i ms into %i-minute buckets', (rangeMs, minutes) => {
    expect(bucketMinutesFor(rangeMs)).toBe(minutes)
  })

  it('never gives more than the target number of points below the widest width', () => {
    for (let rangeMs = HOUR; rangeMs <= 60 * DAY; rangeMs += 7 * HOUR) {
      expect(rangeMs / (bucketMinutesFor(rangeMs) * 60_000)).toBeLessThanOrEqual(TARGET_POINTS)
    }
  })
})

describe('namedIntervalFor', () => {
  it.each([
    [HOUR, 'minute'],
    [4 * HOUR, 'minute'],
    [DAY, 'hour'],
    [7 * DAY, 'hour'],
    [8 * DAY, 'day'],
  ])('names %i ms %s', (rangeMs, name) => {
    expect(namedIntervalFor(rangeMs)).toBe(name)
  })
})

describe('bucketTimestamp', () => {
  it('formats UTC without a fraction', () => {
    expect(bucketTimestamp(new Date('2026-04-26T10:59:00.000Z'))).toBe('2026-04-26T10:59:00Z')
    expect(bucketTimestamp(new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 678)))).toBe('2026-01-02T03:04:05Z')
  })
})

describe('minuteOf', () => {
  it('truncates to the start of the UTC minute', () => {
    expect(minuteOf(Date.parse('2026-04-26T10:59:28.267Z'))).toBe(Date.parse('2026-04-26T10:59:00.000Z'))
    expect(minuteOf(Date.parse('2026-04-26T10:59:00.000Z'))).toBe(Date.parse('2026-04-26T10:59:00.000Z'))
  })
})
