/**
 * The load generator: a keep-alive HTTP client (undici, as docs/performance.md, "Principles of the bench" proposes),
 * closed-loop clients that each keep one request in flight, and an open-loop producer that sends at a fixed rate
 * whether or not earlier requests have returned (docs/performance.md, "Principles of the bench": open loop for latency,
 * closed loop for capacity).
 *
 * Why undici rather than node:http: on 2 cores the load generator's CPU is taken from the broker and
 * PostgreSQL. Against a trivial fastify server, 32 clients sending small pushes, undici used 59-72 µs of CPU
 * per request and node:http's Agent 95-105 (three alternating runs of 30 000 requests each, 2026-12-01).
 */
import { Pool } from 'undici'
import { sleep } from './measure.js'

/** A JSON answer. */
export interface HttpAnswer {
  status: number
  body: unknown
}

const ACCEPT_JSON = { accept: 'application/json' }
const SEND_JSON = { accept: 'application/json', 'content-type': 'application/json' }

/** JSON over HTTP/1.1 keep-alive connections to one origin. */
export class HttpClient {
  private readonly pool: Pool
  private readonly accept: Record<string, string>
  private readonly send: Record<string, string>

  /**
   * `maxSockets` bounds concurrent connections; each closed-loop client or consumer needs one. `headers` go on every
   * request (the gateway's API key).
   */
  constructor(baseUrl: string, maxSockets: number, headers: Record<string, string> = {}) {
    this.pool = new Pool(new URL(baseUrl).origin, { connections: maxSockets, pipelining: 1 })
    this.accept = { ...ACCEPT_JSON, ...headers }
    this.send = { ...SEND_JSON, ...headers }
  }

  /**
   * One request. `timeoutMs` (default 30 s) bounds the wait for the answer's headers and then for each
   * chunk of its body; a long-poll pop passes its own wait plus a margin.
   */
  async request(
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    body?: unknown,
    options: { timeoutMs?: number; signal?: AbortSignal } = {},
  ): Promise<HttpAnswer> {
    const timeoutMs = options.timeoutMs ?? 30_000
    const response = await this.pool.request({
      method,
      path,
      headers: body === undefined ? this.accept : this.send,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: options.signal,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    })
    const text = await response.body.text()
    let parsed: unknown = undefined
    try {
      parsed = text ? JSON.parse(text) : undefined
    } catch {
      parsed = text
    }
    return { status: response.statusCode, body: parsed }
  }

  /** Closes the connections; requests still in flight are aborted. */
  close(): Promise<void> {
    return this.pool.destroy()
  }
}

/** Runs `clients` loops concurrently, each awaiting `step(client)` until `keepGoing()` is false. */
export async function closedLoop(
  clients: number,
  keepGoing: () => boolean,
  step: (client: number) => Promise<void>,
): Promise<void> {
  const loops: Promise<void>[] = []
  for (let client = 0; client < clients; client++) {
    loops.push(
      (async () => {
        while (keepGoing()) await step(client)
      })(),
    )
  }
  await Promise.all(loops)
}

/**
 * Calls `fire(n)` for n = 0, 1, 2 ... at `ratePerSecond` from now until `durationMs` have passed, without
 * waiting for earlier calls (a 1 ms timer catches up on every tick with the calls that are due), then
 * waits for every call to settle.
 */
export async function openLoop(
  ratePerSecond: number,
  durationMs: number,
  fire: (n: number) => Promise<void>,
): Promise<void> {
  const start = performance.now()
  const inFlight = new Set<Promise<void>>()
  let next = 0
  for (;;) {
    const elapsed = performance.now() - start
    if (elapsed >= durationMs) break
    const due = Math.floor((elapsed * ratePerSecond) / 1000)
    while (next <= due) {
      const call = fire(next++).finally(() => inFlight.delete(call))
      inFlight.add(call)
    }
    await sleep(1)
  }
  await Promise.all(inFlight)
}
