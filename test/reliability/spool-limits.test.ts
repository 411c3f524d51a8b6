/**
 * The spool at its limits, with a real `queenctl serve` (docs/reliability.md, "Hazards"): a full disk refuses
 * pushes with 503 and never answers `buffered` for something not on disk; SIGTERM during an outage seals
 * the spool and the next broker replays every record.
 */
import { execFileSync } from 'node:child_process'
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { http } from '../support/broker.js'
import type { TestProcess } from '../support/cli-harness.js'
import { startServe } from '../support/serve-process.js'
import { createTestDatabase, dropTestDatabase } from '../support/database.js'
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy.js'
import { Ledger } from '../support/ledger.js'
import { sleep } from '../support/queen.js'

let proxy: FaultProxy
let database: string
const dirs: string[] = []

beforeAll(async () => {
  const connection = inject('pgConnection')
  proxy = await startFaultProxy({ host: connection.host, port: connection.port })
  database = await createTestDatabase('spoollimits')
})
afterAll(async () => {
  await proxy.close()
  await dropTestDatabase(database)
  for (const dir of dirs) await rm(dir, { recursive: true, force: true })
})

function startBroker(spool: string, env: Record<string, string> = {}): Promise<{ process: TestProcess; url: string }> {
  return startServe({ pgPort: proxy.port, database, spool, env })
}

async function pushOne(url: string, ledger: Ledger, queue: string, seq: number, pad = 0) {
  const txId = `${queue}-${seq}`
  const response = await http({ url }, 'POST', '/api/v1/push', {
    items: [{ queue, partition: 'p', transactionId: txId, payload: { seq, pad: 'x'.repeat(pad) } }],
  })
  const status: string = response.body?.[0]?.status ?? 'none'
  ledger.push({
    txId,
    partition: 'p',
    seq,
    outcome: status === 'buffered' ? 'buffered' : status === 'queued' ? 'ok' : 'fail',
  })
  return { status: response.status, item: response.body?.[0], retryAfter: response.headers.get('retry-after') }
}

async function drain(url: string, ledger: Ledger, queue: string, expected: number) {
  const seen = new Set<string>()
  const deadline = Date.now() + 30_000
  while (seen.size < expected && Date.now() < deadline) {
    const response = await http(
      { url },
      'GET',
      `/api/v1/pop/queue/${queue}?consumerGroup=g&batch=100&wait=true&timeout=500`,
    )
    const messages = response.body?.messages ?? []
    for (const message of messages) {
      ledger.deliver({ txId: message.transactionId, group: 'g', partition: message.partition })
      seen.add(message.transactionId)
    }
    if (messages.length > 0) {
      await http({ url }, 'POST', '/api/v1/ack/batch', {
        consumerGroup: 'g',
        acknowledgments: messages.map((message: any) => ({
          transactionId: message.transactionId,
          partitionId: message.partitionId,
          leaseId: message.leaseId,
        })),
      })
    }
  }
}

/** A 2 MiB tmpfs when we may mount one (root), else undefined (the test-hook variant still runs). */
function mountTmpfs(dir: string): boolean {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', dir], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

describe('spool limits', () => {
  it('refuses pushes with 503 once the spool cannot write (test hook), and replays every buffered push', async () => {
    const spool = await mkdtemp('/tmp/queenctl-full-spool-')
    dirs.push(spool)
    const broker = await startBroker(spool, { QUEEN_TEST_HOOKS: 'true' })
    const ledger = new Ledger()
    try {
      proxy.setMode('refuse')
      for (let seq = 0; seq < 10; seq++)
        expect((await pushOne(broker.url, ledger, 'full-q', seq)).item.status).toBe('buffered')
      const hooks = await http(broker, 'POST', '/internal/api/test-hooks', { 'spool.failAfterBytes': 0 })
      expect(hooks.status).toBe(200)
      for (let seq = 10; seq < 15; seq++) {
        const refused = await pushOne(broker.url, ledger, 'full-q', seq)
        expect(refused.status).toBe(503)
        expect(refused.retryAfter).toBe('1')
        expect(refused.item).toMatchObject({ status: 'failed', error: 'spool unavailable: no space left on device' })
      }
      const health = await http(broker, 'GET', '/health')
      expect(health.body.spool).toMatchObject({ state: 'full', records: 10 })
      await http(broker, 'POST', '/internal/api/test-hooks', { 'spool.failAfterBytes': null })
      for (let seq = 15; seq < 20; seq++)
        expect((await pushOne(broker.url, ledger, 'full-q', seq)).item.status).toBe('buffered')
      proxy.setMode('pass')
      await drain(broker.url, ledger, 'full-q', 15)
      expect(ledger.check('g')).toMatchObject({
        acknowledged: 15,
        lost: [],
        unexpected: [],
        duplicates: [],
        inversions: [],
      })
    } finally {
      proxy.setMode('pass')
      await broker.process.kill()
    }
  })

  it('refuses pushes with 503 on a really full disk (2 MiB tmpfs, when root) and replays what was buffered', async (context) => {
    const spool = await mkdtemp('/tmp/queenctl-tmpfs-spool-')
    dirs.push(spool)
    if (!mountTmpfs(spool)) {
      context.skip()
      return
    }
    const ledger = new Ledger()
    let broker: { process: TestProcess; url: string } | undefined
    try {
      // Leave about 300 KiB free, to be given back once the disk has filled.
      await writeFile(`${spool}/filler`, Buffer.alloc(1800 * 1024))
      broker = await startBroker(spool)
      proxy.setMode('refuse')
      let seq = 0
      let refusedAt = -1
      while (seq < 400 && refusedAt < 0) {
        const result = await pushOne(broker.url, ledger, 'tmpfs-q', seq, 4000)
        if (result.status === 503) {
          expect(result.item).toMatchObject({ status: 'failed', error: 'spool unavailable: no space left on device' })
          refusedAt = seq
        } else {
          expect(result.item.status).toBe('buffered')
        }
        seq += 1
      }
      expect(refusedAt).toBeGreaterThan(0)
      expect((await http(broker, 'GET', '/health')).body.spool.state).toBe('full')
      await rm(`${spool}/filler`)
      for (let more = 0; more < 10; more++) {
        expect((await pushOne(broker.url, ledger, 'tmpfs-q', seq, 4000)).item.status).toBe('buffered')
        seq += 1
      }
      proxy.setMode('pass')
      const acknowledged = ledger.pushes.filter((entry) => entry.outcome === 'buffered').length
      await drain(broker.url, ledger, 'tmpfs-q', acknowledged)
      expect(ledger.check('g')).toMatchObject({
        acknowledged,
        lost: [],
        unexpected: [],
        duplicates: [],
        inversions: [],
      })
    } finally {
      proxy.setMode('pass')
      await broker?.process.kill()
      execFileSync('umount', [spool], { stdio: 'ignore' })
    }
  })

  it('seals the spool on SIGTERM during an outage, exits 0, and the next broker replays every record', async () => {
    const spool = await mkdtemp('/tmp/queenctl-term-spool-')
    dirs.push(spool)
    const ledger = new Ledger()
    const first = await startBroker(spool)
    try {
      proxy.setMode('refuse')
      for (let seq = 0; seq < 50; seq++) await pushOne(first.url, ledger, 'term-q', seq)
      expect(ledger.pushes.every((entry) => entry.outcome === 'buffered')).toBe(true)
      first.process.child.kill('SIGTERM')
      const exit = await first.process.exited(5000)
      expect(exit.code).toBe(0)
      const files = await readdir(spool)
      expect(files.filter((name) => name.endsWith('.open'))).toEqual([])
      expect(files.filter((name) => name.endsWith('.seg')).length).toBeGreaterThan(0)
    } finally {
      await first.process.kill()
    }
    proxy.setMode('pass')
    await sleep(50)
    const second = await startBroker(spool)
    try {
      await drain(second.url, ledger, 'term-q', 50)
      expect(ledger.check('g')).toMatchObject({
        acknowledged: 50,
        lost: [],
        unexpected: [],
        duplicates: [],
        inversions: [],
      })
    } finally {
      await second.process.kill()
    }
  })
})
