import { describe, expect, it } from 'vitest'
import { formatAge, formatBytes, formatCount, formatDuration, isoTime, onOff, truncate } from '../../src/cli/format.js'

describe('formatCount', () => {
  it('groups thousands with commas and keeps small numbers as they are', () => {
    expect(formatCount(0)).toBe('0')
    expect(formatCount(999)).toBe('999')
    expect(formatCount(1000)).toBe('1,000')
    expect(formatCount(1234567)).toBe('1,234,567')
    expect(formatCount(-45678)).toBe('-45,678')
    expect(formatCount(12345.5)).toBe('12,345.5')
  })

  it('prints - for null, undefined and non-finite values', () => {
    expect(formatCount(null)).toBe('-')
    expect(formatCount(undefined)).toBe('-')
    expect(formatCount(Number.NaN)).toBe('-')
  })
})

describe('formatBytes', () => {
  it('uses bytes below 1 KiB and binary units with one decimal above', () => {
    expect(formatBytes(0)).toBe('0 B')
    expect(formatBytes(1023)).toBe('1023 B')
    expect(formatBytes(1024)).toBe('1.0 KiB')
    expect(formatBytes(1536)).toBe('1.5 KiB')
    expect(formatBytes(64 * 1024 * 1024)).toBe('64.0 MiB')
    expect(formatBytes(3 * 1024 ** 4)).toBe('3.0 TiB')
  })

  it('prints - for null and negative values', () => {
    expect(formatBytes(null)).toBe('-')
    expect(formatBytes(-1)).toBe('-')
  })
})

describe('formatDuration', () => {
  it('shows the two largest units, dropping a zero second unit', () => {
    expect(formatDuration(250)).toBe('250ms')
    expect(formatDuration(45_000)).toBe('45s')
    expect(formatDuration(200_000)).toBe('3m20s')
    expect(formatDuration(3_840_000)).toBe('1h4m')
    expect(formatDuration(3_600_000)).toBe('1h')
    expect(formatDuration(2 * 86_400_000 + 3 * 3_600_000 + 59_000)).toBe('2d3h')
  })

  it('prints - for negative or missing durations', () => {
    expect(formatDuration(-5)).toBe('-')
    expect(formatDuration(undefined)).toBe('-')
  })
})

describe('formatAge', () => {
  const now = Date.parse('2026-04-26T12:00:00.000Z')

  it('says how long ago, in the largest whole unit, singular or plural', () => {
    expect(formatAge(now - 400, now)).toBe('just now')
    expect(formatAge(now - 1000, now)).toBe('1 second ago')
    expect(formatAge(now - 59_000, now)).toBe('59 seconds ago')
    expect(formatAge(now - 3 * 60_000 - 5000, now)).toBe('3 minutes ago')
    expect(formatAge(now - 2 * 3_600_000, now)).toBe('2 hours ago')
    expect(formatAge(now - 86_400_000, now)).toBe('1 day ago')
  })

  it('accepts ISO strings and Dates, says "in" for the future, and - for garbage', () => {
    expect(formatAge('2026-04-26T11:55:00.000Z', now)).toBe('5 minutes ago')
    expect(formatAge(new Date(now + 5 * 60_000), now)).toBe('in 5 minutes')
    expect(formatAge('yesterday', now)).toBe('-')
    expect(formatAge(null, now)).toBe('-')
  })
})

describe('small formatters', () => {
  it('formats ISO times, truncates with an ellipsis, and says on/off', () => {
    expect(isoTime(0)).toBe('1970-01-01T00:00:00.000Z')
    expect(isoTime(null)).toBeNull()
    expect(truncate('abcdef', 4)).toBe('abc…')
    expect(truncate('abc', 4)).toBe('abc')
    expect(onOff(true)).toBe('on')
    expect(onOff(false)).toBe('off')
    expect(onOff(undefined)).toBe('-')
  })
})
