/**
 * The broker's error catalogue (docs/conventions.md, "Errors"): each error has a stable code, a message and an HTTP
 * status. Handlers throw these; one error handler renders `{"error", "code"}` with the status on control routes, and
 * data-plane routes render their "200 with the error in the body" shapes explicitly.
 */

/** Stable error codes exposed in the `code` field of error answers. */
export const ERROR_CODES = {
  validation: { code: 'QUEEN_ERR_VALIDATION', status: 400 },
  invalidJson: { code: 'QUEEN_ERR_INVALID_JSON', status: 400 },
  unsupportedMediaType: { code: 'QUEEN_ERR_UNSUPPORTED_MEDIA_TYPE', status: 415 },
  bodyTooLarge: { code: 'QUEEN_ERR_BODY_TOO_LARGE', status: 413 },
  notFound: { code: 'QUEEN_ERR_NOT_FOUND', status: 404 },
  routeNotFound: { code: 'QUEEN_ERR_ROUTE_NOT_FOUND', status: 404 },
  queueNotFound: { code: 'QUEEN_ERR_QUEUE_NOT_FOUND', status: 404 },
  messageNotFound: { code: 'QUEEN_ERR_MESSAGE_NOT_FOUND', status: 404 },
  partitionNotFound: { code: 'QUEEN_ERR_PARTITION_NOT_FOUND', status: 404 },
  conflict: { code: 'QUEEN_ERR_CONFLICT', status: 409 },
  databaseUnavailable: { code: 'QUEEN_ERR_DATABASE_UNAVAILABLE', status: 503 },
  draining: { code: 'QUEEN_ERR_DRAINING', status: 503 },
  internal: { code: 'QUEEN_ERR_INTERNAL', status: 500 },
} as const

/** A catalogue entry name. */
export type ErrorKind = keyof typeof ERROR_CODES

/** An expected error with a stable code and an HTTP status. */
export class BrokerError extends Error {
  readonly code: string
  readonly statusCode: number

  constructor(kind: ErrorKind, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'BrokerError'
    this.code = ERROR_CODES[kind].code
    this.statusCode = ERROR_CODES[kind].status
  }
}

/** A 400 naming the offending field: `items[3].traceId: must be a UUID`. */
export function validationError(message: string): BrokerError {
  return new BrokerError('validation', message)
}
