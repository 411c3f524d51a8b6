/**
 * 10 000 parked long-polls (issue 19, docs/design.md, "Scale": thousands of concurrent long-polls): held open on an
 * empty queue by a client process of their own (park-client.mjs; the broker and the client each hold
 * 10 000 sockets, under the 20 000 descriptors `ulimit -n` allows one process here), the broker's heap
 * stays within a generous bound per parked poll, and a shutdown answers every one of them with an HTTP
 * response (the empty envelope, or 503 from the closing listener), never a reset. When the clients
 * vanish instead, every parked pop leaves and its memory is released.
 */
import { fork, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import type { Server } from 'node:net'
import v8 from 'node:v8'
import vm from 'node:vm'
import { describe, expect, it } from 'vitest'
import { http, startTestBroker } from '../../support/broker.js'

const COUNT = 10_000
const PATH = '/api/v1/pop/queue/hx-parked?wait=true&timeout=600000'
/** A resource bound, not a timing: what one parked poll may cost the broker's heap. */
const MAX_HEAP_BYTES_PER_POLL = 20 * 1024
/** What may stay on the heap per poll once its client is gone: a leak of a few hundred bytes each shows. */
const MAX_RETAINED_BYTES_PER_POLL = 500

v8.setFlagsFromString('--expose-gc')
const collectGarbage = vm.runInNewContext('gc') as () => void

function heapAfterGc(): NodeJS.MemoryUsage {
  collectGarbage()
  collectGarbage()
  return process.memoryUsage()
}

interface ClientReport {
  type: 'sent' | 'done'
  outcomes?: Record<string, number>
  samples?: { outcome: string; text: string }[]
}

function nextMessage(child: ChildProcess, type: ClientReport['type']): Promise<ClientReport> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: ClientReport) => {
      if (message.type !== type) return
      child.off('message', onMessage)
      resolve(message)
    }
    child.on('message', onMessage)
    void once(child, 'exit').then(([code]) => reject(new Error(`park client exited with ${String(code)}`)))
  })
}

/** Connections the broker's listener has open. */
function openConnections(broker: { app: { server: Server } }): Promise<number> {
  return new Promise((resolve, reject) => {
    broker.app.server.getConnections((error, count) => (error ? reject(error) : resolve(count)))
  })
}

async function until(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/** Forks the park client against `url`. */
function parkClient(url: string): ChildProcess {
  return fork(new URL('./park-client.mjs', import.meta.url), [url, String(COUNT), PATH], {
    execArgv: [],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
}

describe('10 000 parked long-polls', () => {
  it('stay within a bounded heap and are all answered at shutdown', { timeout: 300_000 }, async () => {
    const broker = await startTestBroker({ label: 'hostile_parked' })
    let closed = false
    let child: ChildProcess | undefined
    try {
      // Warm-up: the code paths of a parked pop run once before the baseline is taken.
      const warm = await Promise.all(
        Array.from({ length: 20 }, () => http(broker, 'GET', '/api/v1/pop/queue/hx-parked?wait=true&timeout=200')),
      )
      expect(warm.every((answer) => answer.status === 200)).toBe(true)
      const before = heapAfterGc()

      child = parkClient(broker.url)
      const sent = nextMessage(child, 'sent')
      const done = nextMessage(child, 'done')
      await sent
      await until(() => broker.services.waiters.parked === COUNT, 180_000, `${COUNT} parked pops`)

      const parked = heapAfterGc()
      const heapPerPoll = (parked.heapUsed - before.heapUsed) / COUNT
      const rssPerPoll = (parked.rss - before.rss) / COUNT
      console.info(
        `parked ${COUNT} pops: heap +${Math.round(heapPerPoll)} B/poll, rss +${Math.round(rssPerPoll)} B/poll ` +
          `(heapUsed ${Math.round(before.heapUsed / 1e6)} -> ${Math.round(parked.heapUsed / 1e6)} MB, ` +
          `rss ${Math.round(before.rss / 1e6)} -> ${Math.round(parked.rss / 1e6)} MB)`,
      )
      expect(heapPerPoll).toBeLessThan(MAX_HEAP_BYTES_PER_POLL)
      expect(broker.services.waiters.parked).toBe(COUNT)

      await broker.close()
      closed = true
      const report = await done
      const outcomes = report.outcomes ?? {}
      console.info(`answers at shutdown: ${JSON.stringify(outcomes)}`)
      expect(report.samples).toEqual([])
      // Every connection got a complete HTTP answer: the empty envelope, or 503 from the closing listener.
      expect(Object.keys(outcomes).filter((outcome) => outcome !== 'status:200' && outcome !== 'status:503')).toEqual(
        [],
      )
      expect((outcomes['status:200'] ?? 0) + (outcomes['status:503'] ?? 0)).toBe(COUNT)
    } finally {
      if (!closed) await broker.close()
      child?.kill()
    }
  })
  it('leave nothing behind when their clients vanish', { timeout: 300_000 }, async () => {
    const broker = await startTestBroker({ label: 'hostile_parked_gone' })
    let child: ChildProcess | undefined
    try {
      const warm = await Promise.all(
        Array.from({ length: 20 }, () => http(broker, 'GET', '/api/v1/pop/queue/hx-parked?wait=true&timeout=200')),
      )
      expect(warm.every((answer) => answer.status === 200)).toBe(true)
      const before = heapAfterGc()
      const openBefore = await openConnections(broker)
      child = parkClient(broker.url)
      await nextMessage(child, 'sent')
      await until(() => broker.services.waiters.parked === COUNT, 180_000, `${COUNT} parked pops`)
      // The client process dies: the kernel closes its 10 000 sockets, and every parked pop must go.
      child.kill('SIGKILL')
      await until(() => broker.services.waiters.parked === 0, 120_000, 'parked pops to leave')
      // Their sockets finish closing a little after the pops leave; only then is the memory free.
      const deadline = Date.now() + 120_000
      while ((await openConnections(broker)) > openBefore) {
        if (Date.now() > deadline) throw new Error('timed out waiting for the sockets to close')
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      // Node lets go of a closed connection's last objects a few seconds later (its periodic connection
      // check), so the heap is read until it is back near the baseline; a leak never gets there.
      const released = Date.now() + 60_000
      let retainedPerPoll = Infinity
      while (Date.now() < released) {
        retainedPerPoll = (heapAfterGc().heapUsed - before.heapUsed) / COUNT
        if (retainedPerPoll < MAX_RETAINED_BYTES_PER_POLL) break
        await new Promise((resolve) => setTimeout(resolve, 500))
      }
      console.info(`after ${COUNT} vanished clients: heap ${Math.round(retainedPerPoll)} B/poll retained`)
      expect(retainedPerPoll).toBeLessThan(MAX_RETAINED_BYTES_PER_POLL)
      // And the broker still serves long-polls.
      const pop = await http(broker, 'GET', '/api/v1/pop/queue/hx-parked?wait=true&timeout=100')
      expect(pop.body).toMatchObject({ success: true, messages: [] })
    } finally {
      child?.kill('SIGKILL')
      await broker.close()
    }
  })
})
