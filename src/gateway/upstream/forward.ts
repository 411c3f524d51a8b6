/**
 * Sends one client request to a broker and streams the answer back (docs/gateway.md, "Brokers"). A broker that
 * cannot be connected to never saw the request, so any request moves on to the next broker; after a broker took
 * the request and failed, only a safe read does (a pop took leases, a push may be stored).
 */
import type { IncomingHttpHeaders } from 'node:http'
import type { Readable } from 'node:stream'
import type { Upstream, UpstreamSet } from './upstream-set.js'

// Headers of one hop (RFC 9110 section 7.6.1) and those the gateway sets itself.
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
])

// Failures before the request left: the broker never saw it.
const NOT_CONNECTED = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'UND_ERR_CONNECT_TIMEOUT',
])

/** The request to send, as the gateway rewrote it. */
export interface OutgoingRequest {
  readonly method: string
  /** Path and query string. */
  readonly url: string
  readonly headers: Record<string, string>
  readonly body?: Buffer
  /** Whether the broker may be asked again after it took the request and failed. */
  readonly retrySafe: boolean
  readonly signal: AbortSignal
}

/** A broker's answer. */
export interface UpstreamAnswer {
  readonly statusCode: number
  readonly headers: Record<string, string | string[]>
  readonly body: Readable
  readonly upstream: string
}

/** No broker answered. */
export class NoUpstreamError extends Error {
  readonly status: 502 | 504

  constructor(status: 502 | 504, message: string) {
    super(message)
    this.status = status
  }
}

/** The client's headers without hop-by-hop ones, its credentials and any tenancy header it tried to send. */
export function forwardableHeaders(headers: IncomingHttpHeaders, dropped: readonly string[]): Record<string, string> {
  const drop = new Set([...HOP_BY_HOP, ...dropped.map((name) => name.toLowerCase())])
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || drop.has(name)) continue
    out[name] = Array.isArray(value) ? value.join(', ') : value
  }
  return out
}

/** A broker's answer headers without hop-by-hop ones. */
export function returnableHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || (HOP_BY_HOP.has(name) && name !== 'content-length')) continue
    out[name] = value
  }
  return out
}

function codeOf(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error as Error).message
}

/** Tries the brokers in order until one answers. */
export async function forward(upstreams: UpstreamSet, request: OutgoingRequest): Promise<UpstreamAnswer> {
  let lastReason = 'no broker configured'
  let timedOut = false
  for (const upstream of upstreams.order()) {
    try {
      return await send(upstream, request)
    } catch (error) {
      if (request.signal.aborted) throw error
      const code = codeOf(error)
      lastReason = `${upstream.url}: ${code}`
      if (NOT_CONNECTED.has(code)) {
        upstreams.markDown(upstream, code)
        continue
      }
      timedOut = code === 'UND_ERR_HEADERS_TIMEOUT'
      if (!request.retrySafe) break
      upstreams.markDown(upstream, code)
    }
  }
  throw new NoUpstreamError(timedOut ? 504 : 502, `No broker answered (${lastReason})`)
}

async function send(upstream: Upstream, request: OutgoingRequest): Promise<UpstreamAnswer> {
  const response = await upstream.pool.request({
    path: request.url,
    method: request.method as 'GET',
    headers: request.headers,
    body: request.body,
    signal: request.signal,
  })
  return {
    statusCode: response.statusCode,
    headers: returnableHeaders(response.headers),
    body: response.body,
    upstream: upstream.url,
  }
}
