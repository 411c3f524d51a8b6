/**
 * Brokers on loopback sharing one database and meshed together (docs/reliability.md, "Hazards"): each gets its own
 * mesh port, the same peer list (itself included) and the same secret.
 */
import { createServer } from 'node:net'
import { createTestDatabase, dropTestDatabase } from './database.js'
import { http, startTestBroker, type TestBroker } from './broker.js'
import { parsePrometheusText } from './prometheus-text.js'

/** A free TCP port on 127.0.0.1 (bound then released). */
export async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen({ host: '127.0.0.1', port: 0 }, resolve))
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

/** A running set of meshed brokers. */
export interface MeshCluster {
  brokers: TestBroker[]
  ports: number[]
  database: string
  /** Closes broker `index` and starts it again with the same name, mesh port and database. */
  restart(index: number): Promise<TestBroker>
  close(): Promise<void>
}

/** Starts `names.length` brokers named after `names`, meshed with `secret`, on one database. */
export async function startMeshCluster(options: {
  names: string[]
  secret?: string
  label: string
  /** Run with the PostgreSQL hint channel too (test broker durability). */
  durable?: boolean
  config?: Parameters<typeof startTestBroker>[0] extends infer O ? (O extends { config?: infer C } ? C : never) : never
}): Promise<MeshCluster> {
  const database = await createTestDatabase(options.label)
  const ports = await Promise.all(options.names.map(() => freePort()))
  const peers = ports.map((port) => `127.0.0.1:${port}`)
  const brokers: TestBroker[] = []
  const start = (index: number) =>
    startTestBroker({
      database,
      config: {
        ...options.config,
        serverId: options.names[index]!,
        host: '127.0.0.1',
        mesh: { port: ports[index]!, peers, secret: options.secret, heartbeatMs: 200 },
      },
      ...(options.durable ? { durable: {} } : {}),
    })
  try {
    for (const index of options.names.keys()) brokers.push(await start(index))
  } catch (error) {
    for (const broker of brokers) await broker.close()
    await dropTestDatabase(database)
    throw error
  }
  return {
    brokers,
    ports,
    database,
    async restart(index) {
      await brokers[index]!.close()
      brokers[index] = await start(index)
      return brokers[index]
    },
    async close() {
      for (const broker of brokers) await broker.close()
      await dropTestDatabase(database)
    },
  }
}

/** Waits until every broker shows every other one connected (usable in hooks, unlike expect.poll). */
export async function meshConnected(brokers: TestBroker[], timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!brokers.every((broker) => broker.app.mesh?.peersConnected === brokers.length - 1)) {
    if (Date.now() > deadline) {
      const states = brokers.map((broker) =>
        broker.app.mesh
          ?.peerViews()
          .map((peer) => peer.state)
          .join(','),
      )
      throw new Error(`the mesh did not connect: ${states.join(' | ')}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** One sample of a broker's Prometheus exposition (0 when the series does not exist yet). */
export async function metric(broker: TestBroker, name: string, labels: Record<string, string> = {}): Promise<number> {
  const text = (await http(broker, 'GET', '/metrics/prometheus')).body as string
  const samples = parsePrometheusText(text)
    .samples(name)
    .filter((sample) => Object.entries(labels).every(([key, value]) => sample.labels[key] === value))
  return samples.reduce((sum, sample) => sum + sample.value, 0)
}
