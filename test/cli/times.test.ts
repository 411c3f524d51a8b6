import { describe, expect, it } from 'vitest'
import { parseSeekTarget, parseTime, parseTimeMs } from '../../src/cli/times.js'

const NOW = Date.parse('2026-12-02T10:00:00.000Z')

describe('times of docs/cli.md, "Times and seek targets"', () => {
  it.each([
    ['now', '2026-12-02T10:00:00.000Z'],
    ['beginning', '1970-01-01T00:00:00.000Z'],
    ['earliest', '1970-01-01T00:00:00.000Z'],
    ['15m', '2026-12-02T09:45:00.000Z'],
    ['2h ago', '2026-12-02T08:00:00.000Z'],
    ['1w', '2026-11-25T10:00:00.000Z'],
    ['500ms', '2026-12-02T09:59:59.500Z'],
    ['1h30m ago', '2026-12-02T08:30:00.000Z'],
    ['2m30s', '2026-12-02T09:57:30.000Z'],
    ['1d12h ago', '2026-11-30T22:00:00.000Z'],
    ['1764669600', '2025-12-02T10:00:00.000Z'],
    ['2026-01-31', '2026-01-31T00:00:00.000Z'],
    ['2026-01-31T12:30:00', '2026-01-31T12:30:00.000Z'],
    ['2026-01-31 12:30:00', '2026-01-31T12:30:00.000Z'],
    ['2026-01-31T12:30:00+02:00', '2026-01-31T10:30:00.000Z'],
    ['2026-01-31T12:30:00.250Z', '2026-01-31T12:30:00.250Z'],
  ])('%s is %s', (text, expected) => {
    expect(parseTime(text, { now: NOW })).toBe(expected)
  })

  it.each(['yesterday', '15x', '1h30', 'h30m', '2026-13-01', '2026-01-31T12:30', '', '-5m', '12:00'])(
    'refuses %j naming the flag',
    (text) => {
      expect(() => parseTimeMs(text, { flag: '--since', now: NOW })).toThrow(/^--since: .* is not a time$/)
    },
  )

  it('maps seek targets: end words to toEnd, everything else to a timestamp', () => {
    expect(parseSeekTarget('end')).toEqual({ toEnd: true })
    expect(parseSeekTarget('latest')).toEqual({ toEnd: true })
    expect(parseSeekTarget('now')).toEqual({ toEnd: true })
    expect(parseSeekTarget('beginning')).toEqual({ timestamp: '1970-01-01T00:00:00.000Z' })
    expect(parseSeekTarget('1h', { now: NOW })).toEqual({ timestamp: '2026-12-02T09:00:00.000Z' })
  })
})
