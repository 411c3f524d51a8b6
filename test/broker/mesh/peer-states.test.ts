/**
 * What `GET /api/v1/system/mesh` shows for each way a peer can be (docs/http-api.md, "System", docs/cli.md, "queenctl
 * mesh status"): never reachable, refused for a different secret, restarted with a new instance id; and the paths a
 * wake takes when both the mesh and the PostgreSQL channel run (one re-check) or only PostgreSQL does.
 */
import { describe, expect, it } from 'vitest'
import { http, startTestBroker, WAKE_ONLY_POP_WAIT, type TestBroker } from '../../support/broker.js'
import { createTestDatabase, dropTestDatabase } from '../../support/database.js'
import { freePort, meshConnected, metric, startMeshCluster } from '../../support/mesh-cluster.js'
import { numbers, pop, push } from '../../support/queen.js'

const SECRET = 'peer-states-secret-0123456789-0123456789'

function meshed(database: string, name: string, port: number, peers: number[], secret = SECRET) {
  return startTestBroker({
    database,
    config: {
      serverId: name,
      host: '127.0.0.1',
      popWait: WAKE_ONLY_POP_WAIT,
      mesh: { port, peers: peers.map((peer) => `127.0.0.1:${peer}`), secret, heartbeatMs: 200 },
    },
  })
}

async function peerView(broker: TestBroker, port: number) {
  const { body } = await http(broker, 'GET', '/api/v1/system/mesh')
  return body.peers.find((peer: { address: string }) => peer.address === `127.0.0.1:${port}`)
}

describe('mesh peer states', () => {
  it('shows a peer that never answered as backoff with a hint, and keeps serving', async () => {
    const database = await createTestDatabase('mesh_unreachable')
    const [own, nobody] = [await freePort(), await freePort()]
    const broker = await meshed(database, 'queen-alone', own, [own, nobody])
    try {
      await expect.poll(async () => (await peerView(broker, nobody))?.state).toBe('backoff')
      const view = await peerView(broker, nobody)
      expect(view.everConnected).toBe(false)
      expect(view.hint).toMatch(/never reachable.*TCP/)
      expect(view.lastError).toMatch(/ECONNREFUSED/)
      expect((await peerView(broker, own)).state).toBe('self')
      await push(broker, [{ queue: 'alone', payload: { n: 7 } }])
      expect(numbers(await pop(broker, 'alone'))).toEqual([7])
    } finally {
      await broker.close()
      await dropTestDatabase(database)
    }
  })

  it('shows a peer with another secret as refused, counting auth failures on both sides', async () => {
    const database = await createTestDatabase('mesh_refused')
    const ports = [await freePort(), await freePort()]
    const a = await meshed(database, 'queen-a', ports[0]!, ports)
    const b = await meshed(database, 'queen-b', ports[1]!, ports, 'a-different-secret-0123456789-0123456789')
    try {
      await expect.poll(async () => (await peerView(a, ports[1]!))?.authFailures).toBeGreaterThan(0)
      const view = await peerView(a, ports[1]!)
      expect(view.state).toBe('refused')
      expect(view.hint).toMatch(/QUEEN_SYNC_SECRET differs/)
      expect(view.lastError).toMatch(/wrong proof/)
      expect(await metric(a, 'queen_mesh_auth_failures_total')).toBeGreaterThan(0)
      expect(await metric(b, 'queen_mesh_auth_failures_total')).toBeGreaterThan(0)
      expect(a.app.mesh!.peersConnected).toBe(0)
    } finally {
      await a.close()
      await b.close()
      await dropTestDatabase(database)
    }
  })

  it('sees a restarted and then flapping peer come back with a new instance id each time, serving all the while', async () => {
    const database = await createTestDatabase('mesh_restart')
    const ports = [await freePort(), await freePort()]
    const a = await meshed(database, 'queen-a', ports[0]!, ports)
    let b: TestBroker | undefined = await meshed(database, 'queen-b', ports[1]!, ports)
    try {
      await meshConnected([a, b])
      for (const [round, expected] of [
        [1, 1],
        [2, 2],
        [3, 3],
      ] as const) {
        await b.close({ keepDatabase: true })
        b = undefined
        await expect.poll(async () => (await peerView(a, ports[1]!)).state).not.toBe('connected')
        await push(a, [{ queue: `restart-${round}`, payload: { n: round } }])
        expect(numbers(await pop(a, `restart-${round}`))).toEqual([round])
        b = await meshed(database, 'queen-b', ports[1]!, ports)
        await expect.poll(async () => (await peerView(a, ports[1]!)).state, { timeout: 15_000 }).toBe('connected')
        expect((await peerView(a, ports[1]!)).restarts).toBe(expected)
      }
      const view = await peerView(a, ports[1]!)
      expect(view.hint).toMatch(/restarted \(new instance id\)/)
      expect((await http(a, 'GET', '/internal/api/shared-state/stats')).body.server_health.restarts_detected).toBe(3)
    } finally {
      await a.close()
      await b?.close()
      await dropTestDatabase(database)
    }
  })
})

describe('open mode on loopback', () => {
  it('connects two brokers without a secret and says auth off', async () => {
    const cluster = await startMeshCluster({ names: ['open-a', 'open-b'], label: 'mesh_open' })
    try {
      await meshConnected(cluster.brokers)
      for (const broker of cluster.brokers) {
        const { body } = await http(broker, 'GET', '/api/v1/system/mesh')
        expect(body).toMatchObject({ auth: 'off', peersConnected: 1 })
      }
    } finally {
      await cluster.close()
    }
  })
})

describe('a wake heard by both paths', () => {
  it('re-checks once when the mesh and the PostgreSQL channel both carry it', async () => {
    const cluster = await startMeshCluster({
      names: ['queen-a', 'queen-b'],
      secret: SECRET,
      label: 'mesh_dedupe',
      durable: true,
      config: { popWait: WAKE_ONLY_POP_WAIT },
    })
    try {
      await meshConnected(cluster.brokers)
      const [a, b] = cluster.brokers
      // Both listeners are up before the push (the hint channel starts once the schema is ready).
      await expect.poll(() => b!.services.hintChannel !== undefined).toBe(true)
      const parked = pop(b!, 'both-paths', { wait: true, timeout: 20_000 })
      await expect.poll(() => b!.services.waiters.parked).toBe(1)
      await push(a!, [{ queue: 'both-paths', payload: { n: 1 } }])
      expect(numbers(await parked)).toEqual([1])
      // The second path's copy arrives and is skipped.
      await expect.poll(() => b!.services.hintEffects.duplicatesSkipped, { timeout: 5000 }).toBe(1)
      const mesh = await metric(b!, 'queen_pop_wakeups_total', { source: 'mesh' })
      const notify = await metric(b!, 'queen_pop_wakeups_total', { source: 'pg_notify' })
      expect(mesh + notify).toBe(1)
    } finally {
      await cluster.close()
    }
  })

  it('still answers through PostgreSQL when the mesh is down', async () => {
    const cluster = await startMeshCluster({
      names: ['queen-a', 'queen-b'],
      secret: SECRET,
      label: 'mesh_fallback',
      durable: true,
      config: { popWait: WAKE_ONLY_POP_WAIT },
    })
    try {
      await meshConnected(cluster.brokers)
      const [a, b] = cluster.brokers
      await a!.app.mesh!.close()
      const parked = pop(b!, 'fallback', { wait: true, timeout: 20_000 })
      await expect.poll(() => b!.services.waiters.parked).toBe(1)
      await push(a!, [{ queue: 'fallback', payload: { n: 1 } }])
      expect(numbers(await parked)).toEqual([1])
      expect(await metric(b!, 'queen_pop_wakeups_total', { source: 'pg_notify' })).toBe(1)
      expect(await metric(b!, 'queen_pop_wakeups_total', { source: 'mesh' })).toBe(0)
    } finally {
      await cluster.close()
    }
  })
})
