/**
 * The gateway's 429 and 503 answers for limits (docs/gateway.md, "Quotas and rate limits"): the body naming the
 * limit or quota, `Retry-After` in whole seconds, and on rate limits the `RateLimit-*` headers of the IETF draft
 * (draft-ietf-httpapi-ratelimit-headers: RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, RateLimit-Policy).
 */
import { wholeSeconds } from './bucket-math.js'
import type { RateVerdict } from './rate-limiter.js'

/** A refusal, ready to send. */
export interface LimitRefusal {
  readonly ok: false
  readonly status: 429 | 503
  readonly headers: Record<string, string>
  readonly body: Record<string, unknown>
}

/** A quota without a window (queues, partitions, stored bytes) frees when the tenant's data shrinks: a back-off. */
export const UNWINDOWED_RETRY_MS = 60_000

export function rateRefusal(verdict: Extract<RateVerdict, { ok: false }>): LimitRefusal {
  const { demand } = verdict
  const seconds = String(wholeSeconds(verdict.retryAfterMs))
  const perSecond = String(Math.max(1, Math.floor(demand.rate)))
  const body: Record<string, unknown> = {
    error: 'rate limit exceeded',
    limit: demand.limit,
    perSecond: demand.rate,
    burst: verdict.capacity,
  }
  if (verdict.tooLarge) {
    body.detail = `this request alone needs ${demand.cost}, more than the limit's burst of ${Math.floor(verdict.capacity)}; send smaller batches`
  }
  return {
    ok: false,
    status: 429,
    // The limit is stated per one-second window; the bucket's burst is in the body.
    headers: {
      'retry-after': seconds,
      'ratelimit-limit': perSecond,
      'ratelimit-remaining': '0',
      'ratelimit-reset': seconds,
      'ratelimit-policy': `${perSecond};w=1;comment="${demand.limit}"`,
    },
    body,
  }
}

export function quotaRefusal(
  quota: string,
  figures: { limit: number; used: number; requested: number },
  retryAfterMs: number,
): LimitRefusal {
  return {
    ok: false,
    status: 429,
    headers: { 'retry-after': String(wholeSeconds(retryAfterMs)) },
    body: { error: `quota exceeded: ${quota}`, quota, ...figures },
  }
}

export function checkUnavailable(error: unknown): LimitRefusal {
  return {
    ok: false,
    status: 503,
    headers: { 'retry-after': '1' },
    body: { error: `quota check unavailable: ${(error as Error).message}` },
  }
}
