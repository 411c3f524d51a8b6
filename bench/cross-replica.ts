/**
 * The `--cross-replica` run (issue 20, docs/operations.md, "The mesh"): three broker processes on the benchmark's
 * PostgreSQL; a long-poll parks on B, a push lands on A, and the time from the push's start to B's answer
 * is measured, once with the mesh and once with PostgreSQL notifications only (QUEEN_SYNC_ENABLED=false).
 * The brokers' re-check timer is set to 10 s, so an answer comes from a wake, not from the timer.
 */
import { randomBytes } from 'node:crypto'
import { freePort, startBrokerProcess, type BrokerProcess } from './broker-process.js'
import type { BenchPostgres } from './postgres.js'

/** Latency percentiles of one mode, ms. */
export interface CrossReplicaMode {
  mode: 'mesh' | 'postgres-only'
  samples: number
  p50: number
  p95: number
  p99: number
  max: number
  /** From the push's answer reaching the client to B's answer (negative: B answered first), p50 and p99, ms. */
  afterPushP50: number
  afterPushP99: number
  /** Answers that did not carry the pushed message (should be 0). */
  missed: number
}

const POP_TIMEOUT_MS = 10_000

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
}

async function parked(broker: BrokerProcess): Promise<number> {
  const text = await (await fetch(`${broker.url}/metrics/prometheus`)).text()
  return Number(/^queen_pop_parked (\S+)$/m.exec(text)?.[1] ?? 0)
}

async function meshConnected(brokers: BrokerProcess[]): Promise<void> {
  const deadline = Date.now() + 30_000
  for (;;) {
    const counts = await Promise.all(
      brokers.map(
        async (broker) =>
          ((await (await fetch(`${broker.url}/api/v1/system/mesh`)).json()) as { peersConnected: number })
            .peersConnected,
      ),
    )
    if (counts.every((count) => count === brokers.length - 1)) return
    if (Date.now() > deadline) throw new Error(`the mesh did not connect: ${counts.join(',')}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

async function startReplicas(pg: BenchPostgres, mesh: boolean): Promise<BrokerProcess[]> {
  const ports = [await freePort(), await freePort(), await freePort()]
  const secret = randomBytes(32).toString('hex')
  const brokers: BrokerProcess[] = []
  try {
    for (const [index, port] of ports.entries()) {
      brokers.push(
        await startBrokerProcess(pg, {
          extraEnv: {
            QUEEN_SERVER_ID: `bench-${index}`,
            QUEEN_MESH_PEERS: ports.map((peer) => `127.0.0.1:${peer}`).join(','),
            QUEEN_MESH_PORT: String(port),
            QUEEN_SYNC_SECRET: secret,
            QUEEN_SYNC_ENABLED: String(mesh),
            POP_WAIT_INITIAL_INTERVAL_MS: '10000',
            POP_WAIT_MAX_INTERVAL_MS: '10000',
          },
        }),
      )
    }
    if (mesh) await meshConnected(brokers)
  } catch (error) {
    for (const broker of brokers) await broker.stop()
    throw error
  }
  return brokers
}

async function measure(
  brokers: BrokerProcess[],
  mode: CrossReplicaMode['mode'],
  iterations: number,
): Promise<CrossReplicaMode> {
  const [a, b] = brokers as [BrokerProcess, BrokerProcess]
  const queue = `bench-xr-${mode}-${randomBytes(3).toString('hex')}`
  const latencies: number[] = []
  const afterPush: number[] = []
  let missed = 0
  for (let index = 0; index < iterations; index++) {
    const answer = fetch(`${b.url}/api/v1/pop/queue/${queue}?wait=true&timeout=${POP_TIMEOUT_MS}&autoAck=true`).then(
      async (response) => ({
        at: performance.now(),
        status: response.status,
        body: response.status === 200 ? await response.json() : undefined,
      }),
    )
    while ((await parked(b)) < 1) await new Promise((resolve) => setTimeout(resolve, 2))
    const started = performance.now()
    const push = await fetch(`${a.url}/api/v1/push`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ items: [{ queue, payload: { index } }] }),
    })
    const pushed = performance.now()
    if (push.status !== 200) throw new Error(`push answered ${push.status}`)
    const popped = await answer
    const messages = (popped.body as { messages?: { data: { index: number } }[] } | undefined)?.messages ?? []
    if (messages[0]?.data.index !== index) missed += 1
    else {
      latencies.push(popped.at - started)
      afterPush.push(popped.at - pushed)
    }
  }
  latencies.sort((x, y) => x - y)
  afterPush.sort((x, y) => x - y)
  const round = (value: number) => Math.round(value * 10) / 10
  return {
    mode,
    samples: latencies.length,
    p50: round(percentile(latencies, 50)),
    p95: round(percentile(latencies, 95)),
    p99: round(percentile(latencies, 99)),
    max: round(latencies.at(-1) ?? NaN),
    afterPushP50: round(percentile(afterPush, 50)),
    afterPushP99: round(percentile(afterPush, 99)),
    missed,
  }
}

/** Runs both modes; each starts and stops its own three brokers. */
export async function runCrossReplica(
  pg: BenchPostgres,
  iterations: number,
  log: (line: string) => void,
): Promise<CrossReplicaMode[]> {
  const results: CrossReplicaMode[] = []
  for (const mesh of [true, false]) {
    const mode = mesh ? 'mesh' : 'postgres-only'
    log(`cross-replica: ${mode}, ${iterations} wakes (push on A, long-poll on B)`)
    const brokers = await startReplicas(pg, mesh)
    try {
      const result = await measure(brokers, mode, iterations)
      results.push(result)
      log(
        `  p50 ${result.p50} ms  p95 ${result.p95} ms  p99 ${result.p99} ms  max ${result.max} ms  missed ${result.missed}`,
      )
    } finally {
      for (const broker of brokers) await broker.stop()
    }
  }
  return results
}
