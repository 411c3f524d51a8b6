/**
 * Failover with a ledger (issue 20, docs/reliability.md, "Hazards" and "The ledger"): three `queenctl serve` replicas
 * on one PostgreSQL, meshed; producers and consumers use the real Queen client with all three URLs. One replica is
 * killed with SIGKILL six times under load and restarted each time. Every acknowledged push must be delivered, in
 * partition order for the group, and nothing may be delivered again after its ack was confirmed.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { expect, inject, it } from 'vitest'
import { closeQueen, describeWithClient, openQueen } from '../compat/client.js'
import { http } from '../support/broker.js'
import type { TestProcess } from '../support/cli-harness.js'
import { createTestDatabase, dropTestDatabase } from '../support/database.js'
import { Ledger } from '../support/ledger.js'
import { freePort } from '../support/mesh-cluster.js'
import { sleep } from '../support/queen.js'
import { startServe } from '../support/serve-process.js'

const NAMES = ['queen-0', 'queen-1', 'queen-2']
const SECRET = 'failover-ledger-secret-0123456789-abcdef'
const QUEUE = 'failover'
const GROUP = 'ledger'
const KILLS = 6

let database: string
const spools: string[] = []
const httpPorts: number[] = []
const meshPorts: number[] = []
const brokers: ({ process: TestProcess; url: string } | undefined)[] = [undefined, undefined, undefined]

function start(index: number) {
  return startServe({
    pgPort: inject('pgConnection').port,
    database,
    spool: spools[index]!,
    env: {
      PORT: String(httpPorts[index]),
      QUEEN_SERVER_ID: NAMES[index]!,
      QUEEN_MESH_PORT: String(meshPorts[index]),
      QUEEN_MESH_PEERS: meshPorts.map((port) => `127.0.0.1:${port}`).join(','),
      QUEEN_SYNC_SECRET: SECRET,
      QUEEN_LEASE_RECLAIM_INTERVAL_MS: '500',
    },
  })
}

async function startAll(): Promise<void> {
  database = await createTestDatabase('mesh_failover')
  for (let index = 0; index < NAMES.length; index++) {
    spools.push(await mkdtemp('/tmp/queenctl-failover-spool-'))
    httpPorts.push(await freePort())
    meshPorts.push(await freePort())
  }
  for (let index = 0; index < NAMES.length; index++) brokers[index] = await start(index)
}

async function stopAll(): Promise<void> {
  for (const broker of brokers) await broker?.process.kill()
  for (const dir of spools) await rm(dir, { recursive: true, force: true })
  if (database) await dropTestDatabase(database)
}

// The producers and consumers are the real client: without it the block is reported as not run (skipped).
describeWithClient('three meshed replicas, one killed six times under load', () => {
  it(
    'loses no acknowledged push, keeps partition order, never redelivers after an ack',
    { timeout: 240_000 },
    async () => {
      // Started and stopped inside the test: the leak check runs after each test.
      await startAll()
      try {
        await runLedger()
      } finally {
        await stopAll()
      }
    },
  )
})

/** The load, the kills and the checks, on the running replicas. */
async function runLedger(): Promise<void> {
  const urls = httpPorts.map((port) => `http://127.0.0.1:${port}`)
  const clientOptions = { urls, timeoutMillis: 5000, retryAttempts: 3, enableFailover: true }
  const admin = await openQueen({ url: urls[0]! }, clientOptions)
  await admin.queue(QUEUE).config({ leaseTime: 3, retryLimit: 100 }).create()
  const ledger = new Ledger()
  let producing = true
  let consuming = true

  // Each producer owns two partitions; an item is retried (same transactionId) until it is acknowledged,
  // so a partition's seq order is the order of its acknowledged pushes.
  const producer = async (id: number) => {
    const queen = await openQueen({ url: urls[id % urls.length]! }, clientOptions)
    const partitions = [`p${id}a`, `p${id}b`]
    const next = new Map(partitions.map((partition) => [partition, 0]))
    try {
      for (let turn = 0; producing; turn++) {
        const partition = partitions[turn % partitions.length]!
        const seq = next.get(partition)!
        const txId = `${partition}-${seq}`
        let outcome: 'ok' | 'unknown' = 'unknown'
        while (outcome !== 'ok') {
          try {
            const results = await queen
              .queue(QUEUE)
              .partition(partition)
              .push([{ transactionId: txId, data: { partition, seq } }])
            const status = Array.isArray(results) ? results[0]?.status : undefined
            if (status === 'queued' || status === 'duplicate' || status === 'buffered') outcome = 'ok'
          } catch {
            // a replica died mid-request: try again, the transaction id makes it idempotent
          }
          if (outcome !== 'ok') {
            if (!producing) break
            await sleep(50)
          }
        }
        ledger.push({ txId, partition, seq, outcome })
        if (outcome === 'ok') next.set(partition, seq + 1)
      }
    } finally {
      await closeQueen(queen)
    }
  }

  const consumer = async (id: number) => {
    const queen = await openQueen({ url: urls[(id + 1) % urls.length]! }, clientOptions)
    try {
      while (consuming) {
        const messages: any[] = await queen.queue(QUEUE).group(GROUP).batch(10).wait(true).timeoutMillis(500).pop()
        if (messages.length === 0) continue
        for (const message of messages) {
          ledger.deliver({ txId: message.transactionId, group: GROUP, partition: message.partition })
        }
        const answer = await queen.ack(messages, true, { group: GROUP })
        if (answer?.success !== true) continue
        messages.forEach((message, index) => {
          if (answer[String(index)]?.success === true) ledger.acked({ txId: message.transactionId, group: GROUP })
        })
      }
    } finally {
      await closeQueen(queen)
    }
  }

  const producers = [0, 1].map((id) => producer(id))
  const consumers = [0, 1].map((id) => consumer(id))
  const restarts: string[] = []
  try {
    for (let kill = 0; kill < KILLS; kill++) {
      await sleep(1200)
      const victim = (kill + 1) % NAMES.length
      await brokers[victim]!.process.kill()
      await sleep(300)
      brokers[victim] = await start(victim)
      restarts.push(NAMES[victim]!)
    }
    await sleep(1000)
  } finally {
    producing = false
    await Promise.all(producers)
  }
  // Consumers drain; messages leased by a killed replica come back when their 3 s lease expires.
  const acknowledged = () => ledger.pushes.filter((entry) => entry.outcome === 'ok').map((entry) => entry.txId)
  const deadline = Date.now() + 90_000
  for (;;) {
    const delivered = new Set(ledger.deliveries.map((entry) => entry.txId))
    if (acknowledged().every((txId) => delivered.has(txId)) || Date.now() > deadline) break
    await sleep(200)
  }
  consuming = false
  await Promise.all(consumers)
  await closeQueen(admin)

  const report = ledger.check(GROUP)
  const afterAck = ledger.deliveredAfterAck(GROUP)
  console.info(
    `failover ledger: kills ${restarts.length} (${restarts.join(', ')}), acknowledged ${report.acknowledged}, ` +
      `delivered ${report.delivered}, lost ${report.lost.length}, duplicated-after-ack ${afterAck.length}, ` +
      `out-of-order ${report.inversions.length}, redelivered before ack ${report.duplicates.length}`,
  )
  expect(restarts).toHaveLength(KILLS)
  expect(report.acknowledged).toBeGreaterThan(50)
  expect(report.lost).toEqual([])
  expect(afterAck).toEqual([])
  expect(report.inversions).toEqual([])
  expect(report.unexpected).toEqual([])

  // The restarted replicas rejoined the mesh.
  for (const url of urls) {
    await expect
      .poll(async () => (await http({ url }, 'GET', '/api/v1/system/mesh')).body.peersConnected, {
        timeout: 20_000,
      })
      .toBe(2)
  }
}
