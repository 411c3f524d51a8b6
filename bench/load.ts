/**
 * The load generator: a keep-alive HTTP client (node:http; undici is not a dependency), closed-loop
 * clients that each keep one request in flight, and an open-loop producer that sends at a fixed rate
 * whether or not earlier requests have returned (perf.md 4.1: open loop for latency, closed loop for
 * capacity).
 */
import http from 'node:http'
import { sleep } from './measure.js'

/** A JSON answer. */
export interface HttpAnswer {
  status: number
  body: unknown
}

/** JSON over HTTP/1.1 keep-alive connections to one origin. */
export class HttpClient {
  readonly agent: http.Agent
  private readonly host: string
  private readonly port: number

  /** `maxSockets` bounds concurrent connections; each closed-loop client or consumer needs one. */
  constructor(baseUrl: string, maxSockets: number) {
    const url = new URL(baseUrl)
    this.host = url.hostname
    this.port = Number(url.port || 80)
    this.agent = new http.Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets, scheduling: 'lifo' })
  }

  request(
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    body?: unknown,
    options: { timeoutMs?: number; signal?: AbortSignal } = {},
  ): Promise<HttpAnswer> {
    return new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body))
      const headers: http.OutgoingHttpHeaders = { accept: 'application/json' }
      if (payload) {
        headers['content-type'] = 'application/json'
        headers['content-length'] = payload.length
      }
      const request = http.request(
        { host: this.host, port: this.port, method, path, headers, agent: this.agent, signal: options.signal },
        (response) => {
          const chunks: Buffer[] = []
          response.on('data', (chunk: Buffer) => chunks.push(chunk))
          response.on('error', reject)
          response.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8')
            let parsed: unknown = undefined
            try {
              parsed = text ? JSON.parse(text) : undefined
            } catch {
              parsed = text
            }
            resolve({ status: response.statusCode ?? 0, body: parsed })
          })
        },
      )
      request.setTimeout(options.timeoutMs ?? 30_000, () =>
        request.destroy(new Error(`${method} ${path}: no answer in ${options.timeoutMs ?? 30_000} ms`)),
      )
      request.on('error', reject)
      request.end(payload)
    })
  }

  close(): void {
    this.agent.destroy()
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
