/**
 * Arbitraries and the property of the fuzz suites (fuzz-*.test.ts): bodies and query strings built from
 * valid-looking values mixed with hostile ones (lone surrogates, `\u0000`, prototype keys, huge and
 * non-finite numbers, deep nesting, bad percent-encoding, wrong JSON types), sent over real HTTP. The
 * property: never a 5xx, and a refused request (4xx) stores nothing.
 */
import fc from 'fast-check'
import { expect } from 'vitest'
import { http, type TestBroker } from '../../support/broker.js'
import { rawRequest } from '../http/edge-helpers.js'
import { storedState } from './hostile-support.js'

/** Runs per route: moderate, so the suites stay well under a minute on two shared cores. */
export const FUZZ_RUNS = Number(process.env.FUZZ_RUNS ?? 120)

/** Any UTF-16 code unit, lone surrogates included. */
const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code))

/** The characters that break rules most often: NUL, lone surrogates, a control character, delimiters. */
const dangerous = fc.constantFrom('\u0000', '\ud800', '\udc00', '\u0001', '\u007f', '/', '%', '\u202e', '\uffff')

/** A short string with one dangerous character somewhere in it. */
const spiked = fc
  .tuple(fc.string({ maxLength: 6 }), dangerous, fc.string({ maxLength: 6 }))
  .map(([before, char, after]) => `${before}${char}${after}`)

/** Strings that break rules: control characters, surrogates, delimiters, prototype names, lengths. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: spiked, weight: 3 },
  { arbitrary: fc.string({ unit: codeUnit, maxLength: 12 }), weight: 1 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 12 }), weight: 1 },
  {
    arbitrary: fc.constantFrom(
      '',
      ' ',
      '.',
      '..',
      'a/b',
      '__proto__',
      'constructor',
      'toString',
      'hasOwnProperty',
      '%00',
      '%ED%A0%80',
      '1e400',
      'NaN',
      'now',
      'Default',
      '__QUEUE_MODE__',
      "'; DROP TABLE queen.messages;--",
      'q'.repeat(255),
      'q'.repeat(256),
      'é'.repeat(300),
    ),
    weight: 3,
  },
)

/** JSON leaves, the awkward numbers included (JSON.stringify turns NaN and Infinity into null). */
export const jsonLeaf: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double(),
  fc.constantFrom(2 ** 64, -(2 ** 63), Number.MAX_SAFE_INTEGER + 2, 1e308, -0, 0.5),
  hostileString,
)

/** Object keys: mostly plain, sometimes hostile or a prototype name (a 400 from the JSON parser). */
const hostileKey = fc.oneof(
  { arbitrary: fc.string({ maxLength: 6 }), weight: 20 },
  { arbitrary: hostileString, weight: 4 },
  { arbitrary: fc.constantFrom('__proto__', 'constructor', 'prototype'), weight: 1 },
)

/** Any JSON value (shallow), with hostile strings as keys and leaves. */
export const jsonValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    jsonLeaf,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(hostileKey, tie('value'), { maxKeys: 4 }),
  ),
})).value

/** A value for a field: usually a plausible one, sometimes a hostile string or any JSON. */
export function field<T>(plausible: fc.Arbitrary<T>): fc.Arbitrary<unknown> {
  return fc.oneof(
    { arbitrary: plausible, weight: 8 },
    { arbitrary: hostileString, weight: 2 },
    { arbitrary: jsonValue, weight: 1 },
  )
}

/** Queue names: a few fixed ones (so accepted input reaches the store), random valid ones, and garbage. */
export const queueName = fc.oneof(
  { arbitrary: fc.constantFrom('fz-a', 'fz-b'), weight: 3 },
  { arbitrary: fc.stringMatching(/^fz-[A-Za-z0-9_.:@-]{1,12}$/), weight: 1 },
)
export const partitionName = fc.oneof(
  fc.constantFrom('Default', 'p1', 'Café'),
  fc.string({ minLength: 1, maxLength: 8 }),
)
export const groupName = fc.oneof(fc.constantFrom('g1', 'g2'), fc.string({ minLength: 1, maxLength: 8 }))
export const uuid = fc.uuid()
export const timestamp = fc.oneof(
  fc
    .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true })
    .map((d) => d.toISOString()),
  fc.constantFrom(
    'now',
    '2026-13-01T00:00:00Z',
    '2026-02-30',
    '2026-01-01 10:00',
    '2026-01-01T10:00:00+0530',
    '99999-01-01',
  ),
)

/** Arrays nested 100-300 deep: past the 128 levels a payload may have (built in a loop, not recursion). */
export const deepValue: fc.Arbitrary<unknown> = fc.integer({ min: 100, max: 300 }).map((depth) => {
  let value: unknown = 1
  for (let i = 0; i < depth; i++) value = [value]
  return value
})

/** A payload: any JSON value, now and then one nested too deep. */
export const payload = fc.oneof({ arbitrary: jsonValue, weight: 6 }, { arbitrary: deepValue, weight: 1 })

/** A body: the structured value serialised, or cut short, or text that is not JSON at all. */
export function bodyText(structured: fc.Arbitrary<unknown>): fc.Arbitrary<string> {
  return fc.oneof(
    { arbitrary: structured.map((value) => JSON.stringify(value) ?? 'null'), weight: 8 },
    {
      arbitrary: fc.tuple(structured, fc.nat()).map(([value, cut]) => (JSON.stringify(value) ?? '').slice(0, cut % 40)),
      weight: 1,
    },
    { arbitrary: fc.string({ unit: codeUnit, maxLength: 30 }), weight: 1 },
  )
}

/** Text as it may appear in a URL: properly encoded, or with broken percent-encoding. */
export function urlText(value: fc.Arbitrary<unknown>): fc.Arbitrary<string> {
  return fc.oneof(
    { arbitrary: value.map((v) => encode(typeof v === 'string' ? v : (JSON.stringify(v) ?? ''))), weight: 5 },
    { arbitrary: fc.constantFrom('%zz', '%E0%A4', '%ED%A0%80', '%00', '%', '+', '%2F', '%C0%AF', '%2e%2e'), weight: 1 },
  )
}

function encode(text: string): string {
  try {
    return encodeURIComponent(text)
  } catch {
    // A lone surrogate cannot be encoded; this is how a hostile client would write it.
    return '%ED%A0%80'
  }
}

/** Integers as query text (encoded): in range, out of range, and not quite integers. */
export const integerText = fc
  .oneof(
    fc.integer({ min: -5, max: 2000 }).map(String),
    fc.constantFrom('1e3', '0x10', '-0', '+1', ' 1', '1.0', '18446744073709551616', '9007199254740993', '١', ''),
  )
  .map(encode)

/** A query string over `keys` (each present or not) plus a random key now and then. */
export function queryString(values: Record<string, fc.Arbitrary<string>>): fc.Arbitrary<string> {
  const entries = Object.entries(values).map(([key, value]) =>
    fc.option(
      value.map((v) => `${key}=${v}`),
      { nil: undefined },
    ),
  )
  return fc
    .tuple(
      fc.tuple(...entries),
      fc.option(fc.tuple(urlText(hostileString), urlText(hostileString)), { nil: undefined }),
    )
    .map(([pairs, extra]) => {
      const parts = pairs.filter((pair): pair is string => pair !== undefined)
      if (extra) parts.push(`${extra[0]}=${extra[1]}`)
      return parts.length === 0 ? '' : `?${parts.join('&')}`
    })
}

/** One fuzzed request. */
export interface FuzzRequest {
  method: 'GET' | 'POST' | 'DELETE'
  path: string
  body?: string
}

/** What the property saw, for the no-5xx summary of a suite. */
export interface FuzzTally {
  statuses: Map<number, number>
  /** Refusals by the start of their error text, to see which checks the runs reached. */
  errors: Map<string, number>
}

export function newTally(): FuzzTally {
  return { statuses: new Map(), errors: new Map() }
}

/**
 * The property for one route: the answer is never a 5xx, and a 4xx leaves every table as it was. A
 * request whose path node:http refuses to send is skipped (a client cannot send it either).
 */
export async function checkRequest(broker: TestBroker, tally: FuzzTally, request: FuzzRequest): Promise<void> {
  const before = await storedState(broker.db)
  const headers: Record<string, string> = {}
  if (request.body !== undefined) {
    headers['content-type'] = 'application/json'
    headers['content-length'] = String(Buffer.byteLength(request.body))
  }
  const answer = await rawRequest(broker.url, {
    method: request.method,
    path: request.path,
    headers,
    body: request.body,
  })
  tally.statuses.set(answer.status, (tally.statuses.get(answer.status) ?? 0) + 1)
  expect(answer.status, `${request.method} ${request.path} ${request.body ?? ''}\n-> ${answer.text}`).toBeLessThan(500)
  // Values PostgreSQL refuses must be caught at the edge (docs/design.md, "Bad input gets a clear error"), never
  // reported as its error.
  expect(answer.text, `${request.method} ${request.path} ${request.body ?? ''}`).not.toMatch(
    /database error|internal error/,
  )
  // A write answered `success: false` (a rolled-back transaction or cycle, a failed ack) applied nothing
  // either. Not a pop: its first contact records a new group's start even when nothing is delivered.
  const failed =
    request.method !== 'GET' && answer.json !== null && typeof answer.json === 'object' && answer.json.success === false
  if (answer.status >= 400 || failed) {
    expect(
      await storedState(broker.db),
      `refused ${request.method} ${request.path} stored something: ${answer.text}`,
    ).toEqual(before)
  }
  if (answer.status >= 400) {
    expect(answer.json?.error, `refused answer names no error: ${answer.text}`).toEqual(expect.any(String))
    const reason = String(answer.json.error)
      .replace(/\[\d+\]/g, '[i]')
      .split(':')[0]!
      .slice(0, 60)
    tally.errors.set(reason, (tally.errors.get(reason) ?? 0) + 1)
  }
}

/** Runs the property over `requests`, then checks the broker is still healthy. */
export async function fuzzRoute(
  broker: TestBroker,
  requests: fc.Arbitrary<FuzzRequest>,
  runs: number = FUZZ_RUNS,
): Promise<FuzzTally> {
  const tally = newTally()
  await fc.assert(
    fc.asyncProperty(requests, (request) => checkRequest(broker, tally, request)),
    { numRuns: runs },
  )
  expect((await http(broker, 'GET', '/health')).status).toBe(200)
  const top = [...tally.errors].sort(([, a], [, b]) => b - a).slice(0, 6)
  console.info(
    `statuses ${JSON.stringify(Object.fromEntries([...tally.statuses].sort(([a], [b]) => a - b)))}, ` +
      `top refusals ${JSON.stringify(Object.fromEntries(top))}`,
  )
  return tally
}
