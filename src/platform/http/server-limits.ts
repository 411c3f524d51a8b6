/**
 * Timeouts and size limits of a server's HTTP listener, set deliberately rather than left to Node's and
 * fastify's defaults (docs/operations.md, "Limits and timeouts of the HTTP listener"). They are constants;
 * only the socket idle timeout follows the server (it must outlast the longest request that waits).
 */

/**
 * Whole header block of a request (docs/http-api.md, "Request bodies": larger is a 431, Node's own limit made
 * explicit).
 */
export const MAX_HEADER_BYTES = 16 * 1024

/** A client has this long to send its request headers; a slow-headers (slowloris) client is cut. */
export const HEADERS_TIMEOUT_MS = 10_000

/**
 * A client has this long to send a whole request, headers and body (32 MiB at ~110 KB/s). Node stops
 * counting once the request is received, so it never cuts a parked pop (test/broker/hostile/timeouts).
 */
export const REQUEST_TIMEOUT_MS = 300_000

/** Idle keep-alive sockets close after this: above the 60 s idle timeout of common load balancers, so
 * the balancer closes first and never sends on a socket the broker already closed. */
export const KEEP_ALIVE_TIMEOUT_MS = 72_000

/** How often Node checks the two timeouts above (its default of 30 s would let a slowloris hold 40 s). */
export const TIMEOUT_CHECK_INTERVAL_MS = 1_000

/** A waiting request is answered within its wait plus a second (a pop, docs/http-api.md); the rest is slack. */
const ANSWER_MARGIN_MS = 60_000

/** Node's timers stop at 2^31-1 ms; a larger socket timeout would be replaced by 1 ms and cut everything. */
const MAX_TIMER_MS = 2 ** 31 - 1

/**
 * Socket inactivity timeout: a parked request (a long-poll) sends nothing until it is answered, so this
 * outlasts the longest wait a request may ask for plus the answer margin.
 */
export function socketIdleTimeoutMs(longestWaitMs: number): number {
  return Math.min(MAX_TIMER_MS, longestWaitMs + ANSWER_MARGIN_MS)
}
