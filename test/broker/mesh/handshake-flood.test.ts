/**
 * Issue 40: anyone who reaches a broker's mesh port, with no secret, held every inbound slot with idle TCP
 * connections reopened as the broker closed them, and a restarted replica could not rejoin. Handshakes in
 * progress now have a budget of their own, in all and per source address, and a full budget drops its
 * oldest silent connection rather than the newcomer, so a peer that speaks the protocol gets through.
 */
import { describe, expect, it } from 'vitest'
import { meshConnected, startMeshCluster } from '../../support/mesh-cluster.js'
import { idleFlood } from '../../support/mesh-wire.js'

const SECRET = 'handshake-flood-secret-0123456789-abcdef'

describe('a flood of idle connections on the mesh port', () => {
  it('does not keep a restarted replica from rejoining', { timeout: 60_000 }, async () => {
    const cluster = await startMeshCluster({ names: ['queen-a', 'queen-b'], secret: SECRET, label: 'mesh_flood' })
    try {
      await meshConnected(cluster.brokers)
      const a = cluster.brokers[0]!
      const aAddress = `127.0.0.1:${cluster.ports[0]}`
      // From the replicas' own address, the hardest case: the per-source budget does not set them apart.
      const flood = idleFlood(cluster.ports[0]!, { connections: 24, reopenAfterMs: 50 })
      try {
        // The flood has filled A's slots and keeps coming back before B restarts.
        await expect.poll(() => flood.closedByBroker, { timeout: 15_000 }).toBeGreaterThan(24)
        const b = await cluster.restart(1)
        // B's own view: its link to A is up, and A hears B's heartbeats on the connection B dialed.
        await expect
          .poll(() => b.app.mesh!.peerViews().find((peer) => peer.address === aAddress)?.state, { timeout: 10_000 })
          .toBe('connected')
        await expect
          .poll(
            () => a.app.mesh!.inboundViews().some((inbound) => inbound.serverId === 'queen-b' && inbound.framesIn > 0),
            { timeout: 10_000 },
          )
          .toBe(true)
        // Still flooded the whole time: the broker kept closing the idle connections.
        const closedBefore = flood.closedByBroker
        await expect.poll(() => flood.closedByBroker).toBeGreaterThan(closedBefore)
        expect(a.app.mesh!.totals.crowdedOut).toBeGreaterThan(0)
      } finally {
        await flood.stop()
      }
    } finally {
      await cluster.close()
    }
  })
})
