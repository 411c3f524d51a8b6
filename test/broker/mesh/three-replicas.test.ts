/**
 * Three brokers on loopback sharing one PostgreSQL, meshed (docs/reliability.md, "Hazards"). They run without the
 * PostgreSQL hint channel and without the periodic re-read, so whatever converges here converged over the
 * mesh; the frames-in counters say so too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { http, WAKE_ONLY_POP_WAIT } from '../../support/broker.js'
import { meshConnected, metric, startMeshCluster, type MeshCluster } from '../../support/mesh-cluster.js'
import { configure, numbers, pop, push } from '../../support/queen.js'

const SECRET = 'three-replicas-share-this-secret-0123456789'

describe('three meshed replicas', () => {
  let cluster: MeshCluster

  beforeAll(async () => {
    cluster = await startMeshCluster({
      names: ['queen-a', 'queen-b', 'queen-c'],
      secret: SECRET,
      label: 'mesh_three',
      config: { popWait: WAKE_ONLY_POP_WAIT },
    })
    await meshConnected(cluster.brokers)
  })
  afterAll(async () => {
    await cluster?.close()
  })

  it('each sees itself once and the two others connected, with auth=hmac', async () => {
    for (const broker of cluster.brokers) {
      const { body } = await http(broker, 'GET', '/api/v1/system/mesh')
      expect(body).toMatchObject({ auth: 'hmac', listening: true, peersConfigured: 3, peersConnected: 2 })
      expect(body.peers.map((peer: { state: string }) => peer.state).sort()).toEqual(['connected', 'connected', 'self'])
      const health = (await http(broker, 'GET', '/health')).body
      expect(health.mesh).toEqual({ auth: 'hmac', peersConfigured: 3, peersConnected: 2 })
    }
    // Heartbeats flow both ways, so round trips are measured.
    const [a] = cluster.brokers
    await expect
      .poll(
        async () =>
          (await http(a!, 'GET', '/api/v1/system/mesh')).body.peers.filter((p: any) => p.rttMs !== null).length,
      )
      .toBe(2)
  })

  it('answers a long-poll on B when a push lands on A, through a POP_WAKE over the mesh', async () => {
    const [a, b, c] = cluster.brokers
    const wakeFramesIn = (broker: typeof a) =>
      metric(broker!, 'queen_mesh_frames_total', { type: 'POP_WAKE', direction: 'in' })
    const wakesBefore = await metric(b!, 'queen_pop_wakeups_total', { source: 'mesh' })
    const [framesA, framesB, framesC] = [await wakeFramesIn(a), await wakeFramesIn(b), await wakeFramesIn(c)]
    const parked = pop(b!, 'mesh-wake', { wait: true, timeout: 20_000 })
    await expect.poll(() => b!.services.waiters.parked).toBe(1)
    await push(a!, [{ queue: 'mesh-wake', payload: { n: 1 } }])
    // B's backoff timer is a minute: only a wake can answer within the test.
    expect(numbers(await parked)).toEqual([1])
    expect(await metric(b!, 'queen_pop_wakeups_total', { source: 'mesh' })).toBe(wakesBefore + 1)
    // One frame from A to each peer, and no re-broadcast: A hears nothing back (docs/reliability.md, "Hazards").
    await expect.poll(() => wakeFramesIn(c)).toBe(framesC + 1)
    expect(await wakeFramesIn(b)).toBe(framesB + 1)
    expect(await wakeFramesIn(a)).toBe(framesA)
  })

  it('holds maintenance set on A on B and C', async () => {
    const [a, b, c] = cluster.brokers
    try {
      expect((await http(a!, 'POST', '/api/v1/system/maintenance/pop', { enabled: true })).status).toBe(200)
      for (const other of [b!, c!]) {
        await expect
          .poll(async () => (await http(other, 'GET', '/api/v1/system/maintenance/pop')).body.popMaintenanceMode)
          .toBe(true)
        expect(
          await metric(other, 'queen_mesh_frames_total', { type: 'POP_MAINTENANCE_MODE_SET', direction: 'in' }),
        ).toBe(1)
        // It holds: a pop on B answers 204 while it is on.
        expect((await http(other, 'GET', '/api/v1/pop/queue/mesh-maint')).status).toBe(204)
      }
    } finally {
      await http(a!, 'POST', '/api/v1/system/maintenance/pop', { enabled: false })
      for (const other of [b!, c!]) await expect.poll(() => other.services.maintenance.pop).toBe(false)
    }
  })

  it("drops B's cached options when A configures the queue, so B's next push sees the new ones", async () => {
    const [a, b] = cluster.brokers
    await configure(a!, 'mesh-config', { maxSize: 100 })
    await push(b!, [{ queue: 'mesh-config', payload: 1 }])
    expect(b!.services.registry.peek('', 'mesh-config')?.maxSize).toBe(100)
    await configure(a!, 'mesh-config', { maxSize: 1 })
    await expect.poll(() => b!.services.registry.peek('', 'mesh-config')).toBeUndefined()
    expect(await metric(b!, 'queen_mesh_frames_total', { type: 'CONFIG_INVALIDATE', direction: 'in' })).toBeGreaterThan(
      0,
    )
    const [next] = await push(b!, [{ queue: 'mesh-config', payload: 2 }])
    expect(next.status).toBe('failed')
    expect(b!.services.registry.peek('', 'mesh-config')?.maxSize).toBe(1)
  })
})
