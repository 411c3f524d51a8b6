/**
 * The listener's timeouts (src/platform/http/server-limits.ts): set deliberately, a slow-headers client
 * (slowloris) and a silent connection are cut after the headers timeout, and a parked pop is never cut
 * by the request timeout, which only bounds receiving the request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  HEADERS_TIMEOUT_MS,
  KEEP_ALIVE_TIMEOUT_MS,
  MAX_HEADER_BYTES,
  REQUEST_TIMEOUT_MS,
  socketIdleTimeoutMs,
} from '../../../src/platform/http/server-limits.js'
import { MAX_POP_TIMEOUT_MS } from '../../../src/broker/http/validation/pop-query.js'
import { http, startTestBroker, type TestBroker } from '../../support/broker.js'
import { drippedHead, slowClient } from './slow-client.js'

let broker: TestBroker

beforeAll(async () => {
  broker = await startTestBroker({ label: 'hostile_timeouts' })
})

afterAll(async () => {
  await broker.close()
})

describe('listener timeouts', () => {
  it('are the documented values on the listening server', () => {
    const server = broker.app.server
    expect(server.headersTimeout).toBe(HEADERS_TIMEOUT_MS)
    expect(server.requestTimeout).toBe(REQUEST_TIMEOUT_MS)
    expect(server.keepAliveTimeout).toBe(KEEP_ALIVE_TIMEOUT_MS)
    // Node keeps the createServer option on the server, though its types do not declare it.
    expect((server as unknown as { maxHeaderSize: number }).maxHeaderSize).toBe(MAX_HEADER_BYTES)
    // The idle timeout outlasts the longest pop a client may ask for.
    expect(server.timeout).toBe(
      socketIdleTimeoutMs(Math.max(MAX_POP_TIMEOUT_MS, broker.services.config.defaultTimeoutMs)),
    )
    expect(server.timeout).toBeGreaterThan(MAX_POP_TIMEOUT_MS + 1000)
    expect(socketIdleTimeoutMs(900_000)).toBeGreaterThan(900_000 + 1000)
    // The largest DEFAULT_TIMEOUT stays a valid Node timer (a larger one would become 1 ms).
    expect(socketIdleTimeoutMs(2 ** 31 - 1)).toBe(2 ** 31 - 1)
  })

  it('closes a slow-headers client and a silent connection, and keeps serving', async () => {
    // One header character every 200 ms: far more slices than the headers timeout lets through.
    const giveUpMs = HEADERS_TIMEOUT_MS + 6000
    const [drip, silent, health] = await Promise.all([
      slowClient(broker.url, drippedHead('/health', 200), { intervalMs: 200, giveUpMs }),
      slowClient(broker.url, [], { intervalMs: 200, giveUpMs }),
      // A well-behaved client is served meanwhile.
      new Promise((resolve) => setTimeout(resolve, 1000)).then(() => http(broker, 'GET', '/health/live')),
    ])
    expect(health.status).toBe(200)
    expect(drip.closedByServer).toBe(true)
    expect(drip.slicesSent).toBeLessThan(drippedHead('/health', 200).length)
    // Node answers the cut request 408 before closing; the headers were never complete, so no route ran.
    expect(drip.text).toMatch(/^HTTP\/1\.1 408 /)
    expect(silent.closedByServer).toBe(true)
    expect((await http(broker, 'GET', '/health')).status).toBe(200)
  })

  it('never cuts a parked pop with the request timeout, which only bounds receiving the request', async () => {
    const server = broker.app.server
    // Shrunk for this test only: a pop parks four times as long as the request timeout allows.
    server.requestTimeout = 1000
    server.headersTimeout = 1000
    try {
      const pop = await http(broker, 'GET', '/api/v1/pop/queue/hostile-parked?wait=true&timeout=4000')
      expect(pop.status).toBe(200)
      expect(pop.body).toMatchObject({ success: true, messages: [], leaseId: null })
    } finally {
      server.requestTimeout = REQUEST_TIMEOUT_MS
      server.headersTimeout = HEADERS_TIMEOUT_MS
    }
  })
})
