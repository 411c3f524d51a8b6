/**
 * PostgreSQL errors classified in one place, by SQLSTATE and Node error code, never by message text
 * (style.md 3.4). The spool and retry decisions read these groups and nothing else.
 */

/** What a failure means for the caller. */
export type PgErrorClass = 'unavailable' | 'retryable' | 'unique-violation' | 'data' | 'other'

const NODE_CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
])

/** Classifies an error thrown by `pg`. */
export function classifyPgError(error: unknown): PgErrorClass {
  const code = (error as { code?: unknown } | null)?.code
  if (typeof code === 'string') {
    if (NODE_CONNECTION_CODES.has(code)) return 'unavailable'
    if (code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03') return 'unavailable'
    if (code === '40001' || code === '40P01') return 'retryable'
    if (code === '23505') return 'unique-violation'
    if (code.startsWith('22') || code.startsWith('23')) return 'data'
    if (/^[0-9A-Z]{5}$/.test(code)) return 'other'
  }
  // pg raises plain Errors for a closed connection, a connect timeout and its client-side query timeout.
  const message = error instanceof Error ? error.message : ''
  if (
    message.includes('Connection terminated') ||
    message.includes('timeout exceeded when trying to connect') ||
    message.includes('Query read timeout') ||
    message.includes('Client has encountered a connection error') ||
    message.includes('Connection ended unexpectedly')
  ) {
    return 'unavailable'
  }
  return 'other'
}

/** Thrown by the engines when PostgreSQL is unreachable: nothing of the request was stored. */
export class DatabaseUnavailableError extends Error {
  constructor(cause: unknown) {
    super(describeDbFailure(cause), { cause })
    this.name = 'DatabaseUnavailableError'
  }
}

/** A short, stack-free description of a database failure for answers to clients. */
export function describeDbFailure(error: unknown): string {
  if (error instanceof DatabaseUnavailableError) return error.message
  const klass = classifyPgError(error)
  const code = (error as { code?: unknown } | null)?.code
  if (klass === 'unavailable') {
    const reason = code === 'ECONNREFUSED' ? 'connection refused' : typeof code === 'string' ? code : 'connection lost'
    return `database unavailable (${reason})`
  }
  if (klass === 'retryable') return 'database conflict (deadlock or serialization failure); retry'
  return `database error${typeof code === 'string' ? ` ${code}` : ''}`
}

/** Normalises anything thrown into an Error (style.md 3.4). */
export function coerceError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error))
}
