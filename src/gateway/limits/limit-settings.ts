/**
 * The quotas and rate limits a tenant or a key can carry (docs/gateway.md, "Quotas and rate limits"): their names,
 * the `proxy quota set` flags that set them, and the parsing of a flag's value. `null` is unlimited.
 */

/** A tenant's limits; each `null` when unset (unlimited). */
export interface TenantLimits {
  /** Queues the tenant may have in the brokers. */
  readonly queues: number | null
  /** Partitions over all its queues. */
  readonly partitions: number | null
  /** Messages pushed per UTC day. */
  readonly messagesPerDay: number | null
  /** Payload bytes (each item's payload as JSON) pushed per UTC day. */
  readonly payloadBytesPerDay: number | null
  /** Payload bytes the brokers hold for the tenant (an estimate, see the docs). */
  readonly storedBytes: number | null
  /** Requests per second over all its keys. */
  readonly requestsPerSecond: number | null
  /** Messages pushed per second over all its keys. */
  readonly messagesPerSecond: number | null
}

/** A key's own rate limits, on top of its tenant's. */
export interface KeyLimits {
  readonly requestsPerSecond: number | null
  readonly messagesPerSecond: number | null
}

export type TenantLimitName = keyof TenantLimits
export type KeyLimitName = keyof KeyLimits

/** How a limit's value is written. */
type ValueKind = 'count' | 'bytes' | 'rate'

interface LimitDefinition {
  /** The `proxy quota set` flag (without `--`) and the quota's name in 429 bodies. */
  readonly flag: string
  readonly kind: ValueKind
  readonly description: string
  /** Whether a key may carry it too (rate limits only). */
  readonly perKey: boolean
}

export const LIMITS: Readonly<Record<TenantLimitName, LimitDefinition>> = {
  queues: { flag: 'queues', kind: 'count', perKey: false, description: 'queues the tenant may have' },
  partitions: { flag: 'partitions', kind: 'count', perKey: false, description: 'partitions over all its queues' },
  messagesPerDay: {
    flag: 'messages-per-day',
    kind: 'count',
    perKey: false,
    description: 'messages pushed per UTC day',
  },
  payloadBytesPerDay: {
    flag: 'payload-bytes-per-day',
    kind: 'bytes',
    perKey: false,
    description: 'payload bytes pushed per UTC day (1000000, 500MB, 2GiB)',
  },
  storedBytes: {
    flag: 'stored-bytes',
    kind: 'bytes',
    perKey: false,
    description: 'payload bytes held in the brokers (estimated)',
  },
  requestsPerSecond: {
    flag: 'requests-per-second',
    kind: 'rate',
    perKey: true,
    description: 'requests per second (token bucket)',
  },
  messagesPerSecond: {
    flag: 'messages-per-second',
    kind: 'rate',
    perKey: true,
    description: 'messages pushed per second (token bucket)',
  },
}

export const TENANT_LIMIT_NAMES = Object.keys(LIMITS) as TenantLimitName[]
export const KEY_LIMIT_NAMES: KeyLimitName[] = ['requestsPerSecond', 'messagesPerSecond']

export const NO_TENANT_LIMITS: TenantLimits = {
  queues: null,
  partitions: null,
  messagesPerDay: null,
  payloadBytesPerDay: null,
  storedBytes: null,
  requestsPerSecond: null,
  messagesPerSecond: null,
}

export const NO_KEY_LIMITS: KeyLimits = { requestsPerSecond: null, messagesPerSecond: null }

/** A limit value that cannot be read; the message names the flag. */
export class LimitValueError extends Error {}

const UNLIMITED = new Set(['unlimited', 'none', 'off'])
const BYTE_UNITS: Readonly<Record<string, number>> = {
  '': 1,
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  tb: 1e12,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
  tib: 1024 ** 4,
}

/** Parses the value of `--<flag>`: `unlimited` (or `none`, `off`) clears it; else a count, a size or a rate. */
export function parseLimitValue(name: TenantLimitName, text: string): number | null {
  const { flag, kind } = LIMITS[name]
  const value = text.trim().toLowerCase()
  if (UNLIMITED.has(value)) return null
  if (kind === 'rate') {
    const rate = /^\d+(\.\d+)?$/.test(value) ? Number(value) : Number.NaN
    if (!(rate > 0) || !Number.isFinite(rate)) {
      throw new LimitValueError(
        `--${flag}: ${JSON.stringify(text)} is not a positive number of per second (or "unlimited")`,
      )
    }
    return rate
  }
  const match = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/.exec(value)
  const unit = match ? BYTE_UNITS[match[2]!] : undefined
  if (!match || unit === undefined || (kind === 'count' && match[2] !== '')) {
    const expected = kind === 'bytes' ? 'a byte size such as 1000000, 500MB or 2GiB' : 'a whole number'
    throw new LimitValueError(`--${flag}: ${JSON.stringify(text)} is not ${expected} (or "unlimited")`)
  }
  const amount = Number(match[1]) * unit
  if (!Number.isSafeInteger(amount)) {
    throw new LimitValueError(
      `--${flag}: ${JSON.stringify(text)} is not a whole number of ${kind === 'bytes' ? 'bytes' : 'items'}`,
    )
  }
  return amount
}

/** A limit value as `proxy quota get` shows it. */
export function formatLimitValue(value: number | null): string {
  return value === null ? 'unlimited' : String(value)
}
