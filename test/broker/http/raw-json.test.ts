import { describe, expect, it } from 'vitest'
import { RawJson, stringifyWithRaw } from '../../../src/broker/http/raw-json.js'

describe('stringifyWithRaw', () => {
  it('splices raw JSON texts verbatim and round-trips through JSON.parse', () => {
    const payloads = ['{"a":1,"b":[true,null]}', '"text with \\"quotes\\" and \\\\u0000raw:0"', '12.5', 'null']
    const value = {
      messages: payloads.map((json, index) => ({
        id: `m${index}`,
        data: new RawJson(json),
        note: `\\u0000raw:${index}`,
      })),
    }
    const text = stringifyWithRaw(value)
    const parsed = JSON.parse(text)
    expect(parsed.messages.map((message: any) => message.data)).toEqual(payloads.map((json) => JSON.parse(json)))
    // Strings that look like a placeholder stay what they were.
    expect(parsed.messages.map((message: any) => message.note)).toEqual(
      payloads.map((_, index) => `\\u0000raw:${index}`),
    )
  })

  it('serialises a RawJson outside stringifyWithRaw as its parsed value', () => {
    expect(JSON.stringify({ data: new RawJson('{"x":[1,2]}') })).toBe('{"data":{"x":[1,2]}}')
  })
})
