/**
 * PostgreSQL really stopped and restarted under load (docs/reliability.md, "Hazards"): a private embedded PostgreSQL
 * the test stops (fast shutdown, then an immediate "crash") and starts again on the same port, under a
 * real `queenctl serve` with producers running. Every `queued`/`buffered` push must be delivered once, in
 * partition order, and the broker process must survive (its pid never changes).
 */
import { mkdtemp, rm } from 'node:fs/promises'
import net from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../src/platform/postgres/embedded-postgres.js'
import { http } from '../support/broker.js'
import { startCli, type TestProcess } from '../support/cli-harness.js'
import { Ledger } from '../support/ledger.js'
import { sleep } from '../support/queen.js'

let dataDir: string
let spoolDir: string
let port: number
let server: EmbeddedPostgres | undefined

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const listener = net.createServer().listen(0, '127.0.0.1', () => {
      const address = listener.address()
      listener.close(() => resolve(typeof address === 'object' && address ? address.port : 0))
    })
  })
}

async function startPostgres(): Promise<EmbeddedPostgres> {
  return startEmbeddedPostgres({ dataDir, port, lock: false, settings: { fsync: 'on', synchronous_commit: 'on' } })
}

beforeAll(async () => {
  dataDir = await mkdtemp('/tmp/queenctl-restart-pg-')
  spoolDir = await mkdtemp('/tmp/queenctl-restart-spool-')
  port = await freePort()
  server = await startPostgres()
})
afterAll(async () => {
  await server?.stop()
  await rm(dataDir, { recursive: true, force: true })
  await rm(spoolDir, { recursive: true, force: true })
})

async function startBroker(): Promise<{ process: TestProcess; url: string }> {
  const connection = server!.connection
  const process = startCli(['serve'], {
    env: {
      PORT: '0',
      HOST: '127.0.0.1',
      PG_HOST: '127.0.0.1',
      PG_PORT: String(port),
      PG_USER: connection.user,
      PG_PASSWORD: connection.password,
      PG_DATABASE: connection.database,
      FILE_BUFFER_DIR: spoolDir,
      FILE_BUFFER_FLUSH_MS: '50',
      DB_CONNECTION_TIMEOUT: '1000',
    },
  })
  const match = await process.waitFor(/\blistening\b.*\bhttp=([\d.]+):(\d+)/, 30_000)
  return { process, url: `http://${match[1]}:${match[2]}` }
}

/** A producer owning one partition: one request at a time, until told to stop. */
function producer(url: string, ledger: Ledger, partition: string, state: { stop: boolean }): Promise<void> {
  return (async () => {
    for (let seq = 0; !state.stop; seq++) {
      const txId = `${partition}-${seq}`
      let outcome: 'ok' | 'buffered' | 'fail' | 'unknown' = 'unknown'
      try {
        const response = await http({ url }, 'POST', '/api/v1/push', {
          items: [{ queue: 'restart-q', partition, transactionId: txId, payload: { seq } }],
        })
        const status = response.body?.[0]?.status
        outcome = status === 'queued' || status === 'duplicate' ? 'ok' : status === 'buffered' ? 'buffered' : 'fail'
      } catch {
        outcome = 'unknown'
      }
      ledger.push({ txId, partition, seq, outcome })
      await sleep(5)
    }
  })()
}

async function drain(url: string, ledger: Ledger, expected: number) {
  const seen = new Set<string>()
  const deadline = Date.now() + 40_000
  while (seen.size < expected && Date.now() < deadline) {
    const response = await http(
      { url },
      'GET',
      '/api/v1/pop/queue/restart-q?consumerGroup=g&batch=100&partitions=4&wait=true&timeout=500',
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

describe('PostgreSQL stopped and restarted under load', () => {
  it('keeps the broker up, spools during the outage, and delivers every acknowledged push once in order', async () => {
    const broker = await startBroker()
    const ledger = new Ledger()
    const state = { stop: false }
    try {
      const producers = ['a', 'b', 'c', 'd'].map((partition) => producer(broker.url, ledger, partition, state))
      await sleep(500)
      // (a) fast shutdown, 1.5 s down
      await server!.stop()
      await sleep(1500)
      expect((await http(broker, 'GET', '/health')).status).toBe(503)
      expect((await http(broker, 'GET', '/health/live')).status).toBe(200)
      server = await startPostgres()
      await sleep(1500)
      // (b) crash (immediate shutdown, recovery at start), 1.5 s down
      await server.crash()
      await sleep(1500)
      server = await startPostgres()
      await sleep(1000)
      state.stop = true
      await Promise.all(producers)

      const outcomes = ledger.pushes.map((entry) => entry.outcome)
      expect(outcomes.filter((outcome) => outcome === 'buffered').length).toBeGreaterThan(0)
      // Producers saw only queued/duplicate/buffered or a retryable refusal, never an unknown outcome.
      expect(outcomes.filter((outcome) => outcome === 'unknown' || outcome === 'fail')).toEqual([])
      expect(broker.process.running()).toBe(true)

      const acknowledged = outcomes.filter((outcome) => outcome === 'ok' || outcome === 'buffered').length
      await drain(broker.url, ledger, acknowledged)
      const report = ledger.check('g')
      expect(report).toMatchObject({ acknowledged, lost: [], unexpected: [], duplicates: [], inversions: [] })
      expect((await http(broker, 'GET', '/health')).status).toBe(200)
    } finally {
      state.stop = true
      await broker.process.kill()
    }
  })

  it('keeps every answered lease through a crash: the acks after it succeed, nothing comes again, nothing is lost', async () => {
    // Every pop commits durably (docs/design.md, "Leases commit durably"): a crash right after a pop's
    // answer must not forget its lease, or its messages would go to a second consumer while the first still
    // holds them. With pops committed without their WAL flush, this test saw the acks refused.
    const broker = await startBroker()
    const ledger = new Ledger()
    const group = 'crash-g'
    const queue = 'lease-crash-q'
    try {
      await http(broker, 'POST', '/api/v1/configure', { queue, options: { leaseTime: 120 } })
      const partitions = ['p0', 'p1', 'p2', 'p3']
      for (const partition of partitions) {
        const items = Array.from({ length: 10 }, (_, seq) => ({
          queue,
          partition,
          transactionId: `${partition}-${seq}`,
          payload: { seq },
        }))
        const response = await http(broker, 'POST', '/api/v1/push', { items })
        items.forEach((item, index) =>
          ledger.push({
            txId: item.transactionId,
            partition,
            seq: index,
            outcome: response.body[index].status === 'queued' ? 'ok' : 'fail',
          }),
        )
      }

      const batches: any[][] = []
      const popBatch = async () => {
        const response = await http(broker, 'GET', `/api/v1/pop/queue/${queue}?consumerGroup=${group}&batch=10`)
        const messages = response.body.messages as any[]
        expect(messages).toHaveLength(10)
        for (const message of messages) {
          ledger.deliver({ txId: message.transactionId, group, partition: message.partition })
        }
        batches.push(messages)
      }
      const ackBatch = (messages: any[]) =>
        http(broker, 'POST', '/api/v1/ack/batch', {
          consumerGroup: group,
          acknowledgments: messages.map((message) => ({
            transactionId: message.transactionId,
            partitionId: message.partitionId,
            leaseId: message.leaseId,
          })),
        })
      // The first batch is popped and acked before the crash (the ack commits durably).
      const confirmed = new Set<string>()
      const refused = new Set<string>()
      await popBatch()
      const first = await ackBatch(batches[0]!)
      first.body.forEach((answer: any, index: number) => {
        expect(answer.success).toBe(true)
        confirmed.add(batches[0]![index].transactionId)
      })
      // Three more pops right before the crash: their leases may not have reached the disk.
      for (let index = 1; index < partitions.length; index++) await popBatch()
      await server!.crash()
      await sleep(500)
      server = await startPostgres()
      const healthy = Date.now() + 20_000
      while ((await http(broker, 'GET', '/health')).status !== 200 && Date.now() < healthy) await sleep(100)

      for (const messages of batches.slice(1)) {
        let answers: any[] = []
        // A refusal for an unreachable database is retried; a refused lease is an answer.
        for (let attempt = 0; attempt < 50; attempt++) {
          answers = (await ackBatch(messages)).body
          if (answers.every((answer) => answer.success || answer.error === 'Invalid or expired lease')) break
          await sleep(200)
        }
        answers.forEach((answer, index) => {
          const txId = messages[index].transactionId as string
          if (answer.success) confirmed.add(txId)
          else {
            expect(answer.error).toBe('Invalid or expired lease')
            refused.add(txId)
          }
        })
      }
      expect([...refused]).toEqual([])
      expect(confirmed.size).toBe(40)

      // Every message was acked under the lease it was popped with: nothing is left to deliver.
      const after = await http(
        broker,
        'GET',
        `/api/v1/pop/queue/${queue}?consumerGroup=${group}&batch=100&partitions=4`,
      )
      expect(after.body?.messages ?? []).toEqual([])
      const report = ledger.check(group)
      expect(report).toMatchObject({ acknowledged: 40, lost: [], unexpected: [], inversions: [] })
      expect(report.duplicates.filter((txId) => confirmed.has(txId))).toEqual([])
    } finally {
      await broker.process.kill()
    }
  })
})
