/**
 * PostgreSQL errors classified in one place, by SQLSTATE and Node error code, never by message text
 * (docs/conventions.md, "Errors"). The spool and retry decisions read these groups and nothing else.
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

/**
 * SQLSTATEs that mean "this server cannot take the write now", not "this request is wrong": a demoted
 * primary or a hot standby refuses writes with 25006 (read_only_sql_transaction), and class 53 is the
 * server out of disk, memory or connection slots. A push spools on them and waits for a writable primary
 * (issue 38: a failover must never turn an accepted push into a failure).
 */
const SERVER_CANNOT_WRITE = new Set(['25006', '57P01', '57P02', '57P03'])

/** Classifies an error thrown by `pg`. */
export function classifyPgError(error: unknown): PgErrorClass {
  const code = (error as { code?: unknown } | null)?.code
  if (typeof code === 'string') {
    if (NODE_CONNECTION_CODES.has(code)) return 'unavailable'
    if (code.startsWith('08') || code.startsWith('53') || SERVER_CANNOT_WRITE.has(code)) return 'unavailable'
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
    // A dedicated pg.Client's connect timeout (the schema apply at boot): issue 38.
    message === 'timeout expired' ||
    message.includes('Query read timeout') ||
    message.includes('Client has encountered a connection error') ||
    message.includes('Connection ended unexpectedly')
  ) {
    return 'unavailable'
  }
  return 'other'
}

/**
 * Whether a failure is the fault of the data sent rather than of the server: only such a failure may set a
 * spooled record aside (quarantine). Anything the server may stop doing later (unavailable, conflicts,
 * timeouts, a missing function during an upgrade) keeps the record in the spool for another attempt.
 */
export function isDataFault(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return classifyPgError(error) === 'other'
  const klass = classifyPgError(error)
  // Class 54 is a program limit (a value too large for an index or a field): the record itself.
  return klass === 'data' || klass === 'unique-violation' || code.startsWith('54')
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
    const reason =
      code === 'ECONNREFUSED'
        ? 'connection refused'
        : code === '25006'
          ? 'server is read-only'
          : typeof code === 'string'
            ? code
            : 'connection lost'
    return `database unavailable (${reason})`
  }
  if (klass === 'retryable') return 'database conflict (deadlock or serialization failure); retry'
  return `database error${typeof code === 'string' ? ` ${code}` : ''}`
}

/** Normalises anything thrown into an Error (docs/conventions.md, "Errors"). */
export function coerceError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error))
}
