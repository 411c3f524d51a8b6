/**
 * The arithmetic of the shared token buckets (docs/gateway.md, "Quotas and rate limits"), kept pure so it is tested
 * on its own: a bucket's capacity, the chunk a replica takes from it at once, and how long a refused request waits.
 */

/** A replica takes this many seconds' worth of tokens per trip to the database: about 10 trips a second at most. */
export const CHUNK_SECONDS = 0.1
/** Tokens a replica took and has not spent are dropped after this long, so they cannot pile into a later burst. */
export const LEASE_TTL_MS = 1000

/** A bucket's capacity: `burstMs` worth of its rate, and never less than one request or message. */
export function bucketCapacity(ratePerSecond: number, burstMs: number): number {
  return Math.max(1, (ratePerSecond * burstMs) / 1000)
}

/** The tokens a replica asks for when it runs short: a tenth of a second's worth, at least the request's cost. */
export function chunkSize(ratePerSecond: number, capacity: number, shortBy: number): number {
  return Math.min(capacity, Math.max(shortBy, ratePerSecond * CHUNK_SECONDS, 1))
}

/** Milliseconds until `missing` tokens have flowed back in at `ratePerSecond`. */
export function refillMs(missing: number, ratePerSecond: number): number {
  return missing <= 0 ? 0 : (missing / ratePerSecond) * 1000
}

/** Whole seconds for `Retry-After` and `RateLimit-Reset`: rounded up, at least 1 (RFC 9110 section 10.2.3). */
export function wholeSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000))
}
