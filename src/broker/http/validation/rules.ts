/**
 * Field rules of docs/http-api.md, "Validation at the edge", shared by every route. Each check returns the normalised
 * value or throws a 400 naming the field path. Written by hand rather than as JSON schemas because the wire contract
 * fixes the exact error texts (`items array is required`, `Each acknowledgment must have ...`), and some rules
 * (unpaired surrogates, `\u0000`, NFC) are not expressible in JSON Schema.
 */
import { validationError } from '../../errors.js'

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const QUEUE_NAME_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9_.:@-]{0,254}$/
// Control characters U+0000-U+001F and U+007F.
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/
const MAX_PAYLOAD_DEPTH = 128

/** The partition every push without one goes to. */
export const DEFAULT_PARTITION = 'Default'
/** The consumer group name of queue mode. */
export const QUEUE_MODE_GROUP = '__QUEUE_MODE__'

/** True for a canonical 8-4-4-4-12 UUID (any version, any case). */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID_PATTERN.test(value)
}

/** A queue name: 1-255 of `[A-Za-z0-9_.:@-]`, starting with a letter, digit or `_`. */
export function checkQueueName(value: unknown, field: string, missingMessage?: string): string {
  if (value === undefined || value === null || value === '') {
    throw validationError(missingMessage ?? `${field} is required`)
  }
  if (typeof value !== 'string') throw validationError(missingMessage ?? `${field}: Queue must be a string`)
  if (!QUEUE_NAME_PATTERN.test(value)) {
    throw validationError(
      `${field}: must be 1-255 characters from [A-Za-z0-9_.:@-], starting with a letter, digit or _`,
    )
  }
  return value
}

/** A partition or consumer group name: 1-255 characters, no control characters, no `/`, not `.`/`..`; NFC. */
export function checkName(value: unknown, field: string): string {
  if (typeof value !== 'string') throw validationError(`${field}: must be a string`)
  if (LONE_SURROGATE.test(value)) throw validationError(`${field}: contains an unpaired UTF-16 surrogate`)
  const name = value.normalize('NFC')
  if (name.length < 1 || name.length > 255) throw validationError(`${field}: must be 1-255 characters`)
  if (CONTROL_CHARACTERS.test(name)) throw validationError(`${field}: must not contain control characters`)
  if (name.includes('/')) throw validationError(`${field}: must not contain '/'`)
  if (name === '.' || name === '..') throw validationError(`${field}: must not be '.' or '..'`)
  return name
}

/** A transaction id: 1-255 characters without control characters. */
export function checkTransactionId(value: unknown, field: string): string {
  if (typeof value !== 'string') throw validationError(`${field}: must be a string`)
  if (value.length < 1 || value.length > 255) throw validationError(`${field}: must be 1-255 characters`)
  if (CONTROL_CHARACTERS.test(value)) throw validationError(`${field}: must not contain control characters`)
  if (LONE_SURROGATE.test(value)) throw validationError(`${field}: contains an unpaired UTF-16 surrogate`)
  return value
}

/** A UUID in canonical form, returned lowercase. */
export function checkUuid(value: unknown, field: string): string {
  if (!isUuid(value)) throw validationError(`${field}: must be a UUID`)
  return value.toLowerCase()
}

/** An optional trace id: a UUID or absent/null. */
export function checkOptionalUuid(value: unknown, field: string): string | null {
  if (value === undefined || value === null) return null
  return checkUuid(value, field)
}

/** A short free-text tag (namespace, task, error text): a string PostgreSQL's text type can hold. */
export function checkText(value: unknown, field: string, maxLength: number): string {
  if (typeof value !== 'string') throw validationError(`${field}: must be a string`)
  if (value.length > maxLength) throw validationError(`${field}: must be at most ${maxLength} characters`)
  // PostgreSQL text cannot hold U+0000: caught here, not as a database error that fails a whole batch.
  if (value.includes('\u0000')) throw validationError(`${field}: must not contain \\u0000`)
  if (LONE_SURROGATE.test(value)) throw validationError(`${field}: contains an unpaired UTF-16 surrogate`)
  return value
}

/**
 * A payload: any JSON value PostgreSQL's jsonb accepts. Refuses strings (values or keys) holding `\u0000`
 * or an unpaired surrogate, and nesting deeper than 128 levels, so such input is a 400 at the edge and
 * never a database error later (docs/design.md, "Bad input gets a clear error").
 */
export function checkPayload(value: unknown, field: string): void {
  checkPayloadValue(value, field, 1)
}

// Recursive rather than with an explicit stack: the depth is capped at MAX_PAYLOAD_DEPTH, and the push path
// validates every value of every payload, where allocating a stack entry per value showed in profiles.
function checkPayloadValue(value: unknown, field: string, depth: number): void {
  if (typeof value === 'string') {
    checkJsonString(value, field)
  } else if (typeof value === 'number') {
    // JSON like 1e400 parses to Infinity, which would be stored as null: refused rather than changed.
    if (!Number.isFinite(value)) throw validationError(`${field}: numbers must be finite (fit a double)`)
  } else if (value !== null && typeof value === 'object') {
    if (depth > MAX_PAYLOAD_DEPTH) throw validationError(`${field}: nested deeper than ${MAX_PAYLOAD_DEPTH} levels`)
    if (Array.isArray(value)) {
      for (const element of value) checkPayloadValue(element, field, depth + 1)
    } else {
      const record = value as Record<string, unknown>
      for (const key in record) {
        checkJsonString(key, field)
        checkPayloadValue(record[key], field, depth + 1)
      }
    }
  }
}

function checkJsonString(text: string, field: string): void {
  if (text.includes('\u0000')) throw validationError(`${field}: strings must not contain \\u0000`)
  if (LONE_SURROGATE.test(text)) throw validationError(`${field}: contains an unpaired UTF-16 surrogate`)
}

/**
 * An ISO 8601 timestamp with `Z` or an offset (a value without offset is read as UTC), or `now` when
 * allowed. Anything else is a 400.
 */
export function checkTimestamp(value: unknown, field: string, options: { allowNow?: boolean } = {}): Date {
  if (typeof value !== 'string' || value.trim() === '') throw validationError(`${field}: must be an ISO 8601 timestamp`)
  if (options.allowNow && value.toLowerCase() === 'now') return new Date()
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?)?(Z|[+-]\d{2}:?\d{2})?$/i.exec(
    value.trim(),
  )
  if (!match) throw validationError(`${field}: must be an ISO 8601 timestamp`)
  const [, year, month, day, hour = '00', minute = '00', second = '00', fraction = '', zone] = match
  const offset = zone === undefined || zone.toUpperCase() === 'Z' ? 'Z' : zone.replace(/^([+-]\d{2})(\d{2})$/, '$1:$2')
  const millis = fraction ? fraction.slice(0, 4).padEnd(4, '0') : ''
  const date = new Date(`${year}-${month}-${day}T${hour}:${minute}:${second}${millis}${offset}`)
  if (Number.isNaN(date.getTime()) || Number(month) > 12 || Number(day) > 31 || Number(hour) > 23) {
    throw validationError(`${field}: must be an ISO 8601 timestamp`)
  }
  return date
}

/** A plain object body (or `{}` for a missing one). */
export function asObject(value: unknown, message = 'request body must be a JSON object'): Record<string, unknown> {
  if (value === undefined || value === null) return {}
  if (typeof value !== 'object' || Array.isArray(value)) throw validationError(message)
  return value as Record<string, unknown>
}
