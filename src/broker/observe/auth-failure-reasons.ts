/** The `reason` label of `queen_auth_failures_total` (docs/operations.md, "Prometheus series"). */

/** Why a request was refused (the `reason` label). */
export type AuthFailureReason =
  | 'missing'
  | 'malformed'
  | 'invalid_signature'
  | 'unknown_key'
  | 'invalid_algorithm'
  | 'expired'
  | 'not_yet_valid'
  | 'invalid_issuer'
  | 'invalid_audience'
  | 'missing_exp'
  | 'repeated_key'
  | 'jwks_unavailable'
  | 'invalid'
  | 'forbidden'
  | 'tenant_mismatch'

/** Every reason, for counters that start at 0. */
export const AUTH_FAILURE_REASONS: readonly AuthFailureReason[] = [
  'missing',
  'malformed',
  'invalid_signature',
  'unknown_key',
  'invalid_algorithm',
  'expired',
  'not_yet_valid',
  'invalid_issuer',
  'invalid_audience',
  'missing_exp',
  'repeated_key',
  'jwks_unavailable',
  'invalid',
  'forbidden',
  'tenant_mismatch',
]
