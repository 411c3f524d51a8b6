/**
 * Query-string parameters (docs/http-api.md, "Query and path parameters"): exact keys, a present-but-empty value counts
 * as absent, strict integers and booleans, and garbage answered with a 400 naming the parameter instead of a silent
 * default.
 */
import { validationError } from '../../errors.js'

/** The parsed query string fastify hands a route. */
export type Query = Record<string, string | string[] | undefined>

/** The value of `name`, undefined when absent or empty; a repeated parameter is a 400. */
export function queryValue(query: Query, name: string): string | undefined {
  const value = query[name]
  if (Array.isArray(value)) throw validationError(`${name}: must be given once`)
  return value === undefined || value === '' ? undefined : value
}

/** An integer parameter in [min, max], or the default when absent. */
export function queryInteger(
  query: Query,
  name: string,
  range: { min: number; max: number },
  fallback: number,
): number {
  const raw = queryValue(query, name)
  if (raw === undefined) return fallback
  if (!/^-?\d+$/.test(raw)) throw validationError(`${name}: must be an integer`)
  const value = Number(raw)
  if (!Number.isSafeInteger(value) || value < range.min || value > range.max) {
    throw validationError(`${name}: must be between ${range.min} and ${range.max}`)
  }
  return value
}

/** A boolean parameter (`true`, `false`, `1`, `0`, any case), or the default when absent. */
export function queryBoolean(query: Query, name: string, fallback: boolean): boolean {
  const raw = queryValue(query, name)
  if (raw === undefined) return fallback
  switch (raw.toLowerCase()) {
    case 'true':
    case '1':
      return true
    case 'false':
    case '0':
      return false
    default:
      throw validationError(`${name}: must be true, false, 1 or 0`)
  }
}

/**
 * The name of the first query parameter whose key or value is not valid percent-encoded UTF-8 (`%zz`,
 * `%E0%A4`, an encoded lone surrogate), or undefined. Fastify's parser keeps such text undecoded, which
 * would turn `?consumerGroup=%ED%A0%80` into a group literally named `%ED%A0%80`.
 */
export function badlyEncodedParameter(url: string): string | undefined {
  const start = url.indexOf('?')
  if (start < 0 || !url.includes('%', start)) return undefined
  for (const pair of url.slice(start + 1).split('&')) {
    if (!pair.includes('%')) continue
    const equals = pair.indexOf('=')
    const key = equals < 0 ? pair : pair.slice(0, equals)
    const decodedKey = decodeOrUndefined(key)
    if (decodedKey === undefined) return 'query'
    if (equals >= 0 && decodeOrUndefined(pair.slice(equals + 1)) === undefined) return decodedKey.slice(0, 64)
  }
  return undefined
}

function decodeOrUndefined(text: string): string | undefined {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '))
  } catch {
    return undefined
  }
}
