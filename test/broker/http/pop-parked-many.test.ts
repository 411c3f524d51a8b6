import net from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestBroker, type TestBroker } from '../../support/broker.js'
import { pop, pushMany, sleep } from '../../support/queen.js'

/** Long-polls opened at once on one queue: hundreds of times what a two-connection pool runs at once. */
const POLLS = 800

type PopBody = { success: boolean; error?: string; messages: { data: { n: number } }[] }

/**
 * GETs `path` `count` times at once: connects one socket per request, then writes every request in one go,
 * so they reach the broker in one burst as from a separate client process (fetch from this process would
 * pace them on the shared event loop). Answers the bodies.
 */
async function burst(url: string, path: string, count: number): Promise<Promise<PopBody>[]> {
  const { hostname, port } = new URL(url)
  const sockets = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<net.Socket>((resolve, reject) => {
          const socket = net.connect(Number(port), hostname, () => resolve(socket))
          socket.once('error', reject)
        }),
    ),
  )
  const answers = sockets.map(
    (socket) =>
      new Promise<PopBody>((resolve, reject) => {
        let text = ''
        socket.setEncoding('utf8')
        socket.on('data', (chunk: string) => (text += chunk))
        socket.once('error', reject)
        // Connection: close, so the answer ends with the socket; its body follows the blank line.
        socket.once('end', () => resolve(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as PopBody))
      }),
  )
  for (const socket of sockets) socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`)
  return answers
}

let broker: TestBroker
beforeAll(async () => {
  // Two connections, and a pool-acquire deadline short enough that pops queued for a connection behind a
  // burst of others miss it (issue 22: 10,000 long-polls overflowed the pool and were answered early).
  broker = await startTestBroker({ label: 'parked_many', config: { pg: { poolSize: 2 } } })
  // The test broker's pool is built from the test connection, without DB_CONNECTION_TIMEOUT: set the pool
  // option that variable sets in production (db/pool.ts). Before the bound, 721 of 800 polls missed it.
  broker.services.pool.options.connectionTimeoutMillis = 200
})
afterAll(async () => {
  await broker.close()
})

describe('many long-polls on one queue with a small pool', () => {
  it('keeps every one parked without a database error, then delivers each pushed message exactly once', async () => {
    // Given an existing, empty queue
    await pushMany(broker, 'crowd', 'p', 1, -1)
    expect((await pop(broker, 'crowd', { autoAck: true })).messages).toHaveLength(1)

    // Both connections of the pool are open (a connect during the burst would race the short deadline)
    await Promise.all([1, 2].map(() => broker.services.pool.query('SELECT pg_sleep(0.05)')))
    expect(broker.services.pool.totalCount).toBe(2)

    // When POLLS long-polls arrive at once
    const early: PopBody[] = []
    let waiting = true
    const path = '/api/v1/pop/queue/crowd?batch=1&wait=true&timeout=60000&autoAck=true'
    const polls = (await burst(broker.url, path, POLLS)).map(async (answer) => {
      const body = await answer
      if (waiting) early.push(body)
      return body
    })
    for (let tries = 0; tries < 600 && broker.services.waiters.parked + early.length < POLLS; tries++) await sleep(50)

    // Then all of them are parked, none answered early (no "database unavailable")
    expect(early.slice(0, 3)).toEqual([])
    expect(broker.services.waiters.parked).toBe(POLLS)

    // When as many messages are pushed, each parked pop gets exactly one, and every message goes to one pop
    waiting = false
    await pushMany(broker, 'crowd', 'p', POLLS)
    const bodies = await Promise.all(polls)
    expect(bodies.filter((body) => body.messages.length !== 1).slice(0, 3)).toEqual([])
    const delivered = bodies.map((body) => body.messages[0]!.data.n).sort((a, b) => a - b)
    expect(delivered).toEqual(Array.from({ length: POLLS }, (_, index) => index))
    expect(broker.services.waiters.parked).toBe(0)
  })
})
