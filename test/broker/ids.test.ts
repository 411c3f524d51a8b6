import { describe, expect, it } from 'vitest'
import { parse, stringify, validate, version } from 'uuid'
import { newUuidV7 } from '../../src/broker/ids.js'

describe('newUuidV7', () => {
  it('makes valid, distinct version-7 UUIDs that sort in the order they were made', () => {
    const ids = Array.from({ length: 5000 }, () => newUuidV7())
    for (const id of ids) {
      expect(validate(id)).toBe(true)
      expect(version(id)).toBe(7)
      // The canonical text of its own bytes: lower case, dashes at 8-4-4-4-12.
      expect(stringify(parse(id))).toBe(id)
    }
    expect(new Set(ids).size).toBe(ids.length)
    expect([...ids].sort()).toEqual(ids)
  })

  it('carries the current time in its first 48 bits', () => {
    const before = Date.now()
    const id = newUuidV7()
    const msecs = parseInt(id.replace(/-/g, '').slice(0, 12), 16)
    expect(msecs).toBeGreaterThanOrEqual(before)
    expect(msecs).toBeLessThanOrEqual(Date.now() + 1)
  })
})
