/**
 * The mesh protocol on raw sockets (docs/operations.md, "Frames", "Handshake", "Frame authentication" and "Open mode",
 * docs/reliability.md, "Hazards"): a test broker's mesh port is dialed (or dials a hand-driven acceptor) and sent bytes
 * a real peer never would. Every refusal must close the connection, and the authentication refusals must count in
 * queen_mesh_auth_failures_total.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { http, startTestBroker, type TestBroker } from '../../support/broker.js'
import { parsePrometheusText } from '../../support/prometheus-text.js'
import { dialAndHandshake, WireSocket, wireAcceptor } from '../../support/mesh-wire.js'
import { Writable } from 'node:stream'
import { MAX_HANDSHAKES, MAX_HANDSHAKES_PER_SOURCE, MAX_INBOUND, Mesh } from '../../../src/broker/mesh/mesh.js'
import { createLogger } from '../../../src/platform/log/logger.js'
import { encodePlainFrame } from '../../../src/broker/mesh/protocol.js'

const SECRET = 'a-mesh-secret-of-at-least-32-bytes!!'

async function authFailures(broker: TestBroker): Promise<number> {
  const text = (await http(broker, 'GET', '/metrics/prometheus')).body as string
  return parsePrometheusText(text).value('queen_mesh_auth_failures_total')
}

function meshPort(broker: TestBroker): number {
  return broker.app.mesh!.port
}

function heartbeat(instance = 'wire') {
  return { type: 'HEARTBEAT', from: 'wire-test', ts: Date.now(), instance, uptimeMs: 1 }
}

describe('the mesh protocol on raw sockets', () => {
  let broker: TestBroker

  beforeAll(async () => {
    broker = await startTestBroker({
      label: 'mesh_protocol',
      // One peer that never answers: the mesh runs and listens; the tests dial it themselves.
      config: { host: '127.0.0.1', mesh: { port: 0, peers: ['127.0.0.1:1'], secret: SECRET } },
      meshTiming: { stallTimeoutMs: 300 },
    })
  })
  afterAll(async () => {
    await broker.close()
  })

  it('accepts the right secret and keeps the connection open', async () => {
    const session = await dialAndHandshake(meshPort(broker), SECRET)
    session.send(heartbeat())
    await expect
      .poll(() => broker.app.mesh!.inboundViews().find((view) => view.serverId === 'wire-test')?.framesIn)
      .toBe(1)
    expect(session.wire.closed).toBe(false)
    session.wire.destroy()
  })

  it('refuses a dialer with the wrong secret and counts an auth failure', async () => {
    const before = await authFailures(broker)
    const session = await dialAndHandshake(meshPort(broker), 'not-the-secret-not-the-secret-not-it')
    await session.wire.whenClosed
    expect(await authFailures(broker)).toBe(before + 1)
  })

  it('closes on a frame before the handshake, and the maintenance flag stays off', async () => {
    const before = await authFailures(broker)
    const wire = await WireSocket.dial(meshPort(broker))
    wire.write(encodePlainFrame({ type: 'MAINTENANCE_MODE_SET', from: 'x', ts: Date.now(), enabled: true }))
    await wire.whenClosed
    expect(await authFailures(broker)).toBe(before + 1)
    expect((await http(broker, 'GET', '/api/v1/system/maintenance')).body.maintenanceMode).toBe(false)
  })

  it('closes on a forged MAC and counts an auth failure; the forged flag is not applied', async () => {
    const session = await dialAndHandshake(meshPort(broker), SECRET)
    const before = await authFailures(broker)
    const frame = session.frame({ type: 'MAINTENANCE_MODE_SET', from: 'wire-test', ts: Date.now(), enabled: true })
    frame[10] = (frame[10] ?? 0) ^ 0xff // inside the MAC
    session.wire.write(frame)
    await session.wire.whenClosed
    expect(await authFailures(broker)).toBe(before + 1)
    expect((await http(broker, 'GET', '/api/v1/system/maintenance')).body.maintenanceMode).toBe(false)
  })

  it('closes on a replayed frame and counts an auth failure', async () => {
    const session = await dialAndHandshake(meshPort(broker), SECRET)
    const before = await authFailures(broker)
    const first = session.send(heartbeat())
    session.wire.write(first)
    await session.wire.whenClosed
    expect(await authFailures(broker)).toBe(before + 1)
  })

  it('refuses a frame captured on one connection and replayed on another', async () => {
    const captured = await dialAndHandshake(meshPort(broker), SECRET)
    const frame = captured.send(heartbeat())
    const other = await dialAndHandshake(meshPort(broker), SECRET)
    const before = await authFailures(broker)
    other.wire.write(frame)
    await other.wire.whenClosed
    expect(await authFailures(broker)).toBe(before + 1)
    captured.wire.destroy()
  })

  it('closes on a skipped sequence number and counts an auth failure', async () => {
    const session = await dialAndHandshake(meshPort(broker), SECRET)
    const before = await authFailures(broker)
    session.send(heartbeat())
    session.wire.write(session.frame(heartbeat(), { seq: 3n }))
    await session.wire.whenClosed
    expect(await authFailures(broker)).toBe(before + 1)
  })

  it('ignores an unknown frame type and keeps reading', async () => {
    const mesh = broker.app.mesh!
    const unknownBefore = mesh.totals.unknownFrames
    const session = await dialAndHandshake(meshPort(broker), SECRET, { serverId: 'future-peer' })
    session.send({ type: 'SOMETHING_NEWER', from: 'future-peer', ts: Date.now(), payload: [1, 2, 3] })
    session.send(heartbeat())
    await expect.poll(() => mesh.inboundViews().find((view) => view.serverId === 'future-peer')?.framesIn).toBe(2)
    expect(mesh.totals.unknownFrames).toBe(unknownBefore + 1)
    expect(session.wire.closed).toBe(false)
    session.wire.destroy()
  })

  it('survives a flood of 10 000 valid POP_WAKE frames from one peer and keeps serving', async () => {
    const mesh = broker.app.mesh!
    const session = await dialAndHandshake(meshPort(broker), SECRET, { serverId: 'flooding-peer' })
    const frames: Buffer[] = []
    for (let index = 0; index < 10_000; index++) {
      frames.push(
        session.frame({
          type: 'POP_WAKE',
          from: 'flooding-peer',
          ts: Date.now(),
          wakes: [{ tenant: '', queue: `flood-${index % 50}`, partition: null, mark: index + 1 }],
        }),
      )
    }
    session.wire.write(Buffer.concat(frames))
    await expect
      .poll(() => mesh.inboundViews().find((view) => view.serverId === 'flooding-peer')?.framesIn, { timeout: 20_000 })
      .toBe(10_000)
    expect(session.wire.closed).toBe(false)
    expect((await http(broker, 'GET', '/health/live')).status).toBe(200)
    session.wire.destroy()
  })

  it('closes on a 4 GiB length prefix without allocating it', async () => {
    const wire = await WireSocket.dial(meshPort(broker))
    const before = process.memoryUsage().arrayBuffers
    wire.write(Buffer.from([0xff, 0xff, 0xff, 0xff, 1, 2, 3]))
    await wire.whenClosed
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(64 * 1024 * 1024)
    // The broker still serves.
    expect((await http(broker, 'GET', '/health/live')).status).toBe(200)
  })

  it('closes a connection that never starts the handshake, at its deadline (5 s)', { timeout: 20_000 }, async () => {
    const wire = await WireSocket.dial(meshPort(broker))
    const openedAt = Date.now()
    await wire.whenClosed
    expect(wire.closed).toBe(true)
    // Closed by the deadline, not at once: a silent dialer gets its whole handshake window.
    expect(Date.now() - openedAt).toBeGreaterThanOrEqual(4_000)
  })

  it('closes a connection that stalls mid-frame (stall clock shortened by the test hook)', async () => {
    const session = await dialAndHandshake(meshPort(broker), SECRET)
    const frame = session.frame(heartbeat())
    session.wire.write(frame.subarray(0, 10))
    await session.wire.whenClosed
    expect(session.wire.closed).toBe(true)
  })

  it(`keeps at most ${MAX_HANDSHAKES_PER_SOURCE} handshakes from one source address, closing the oldest`, async () => {
    const mesh = broker.app.mesh!
    await expect.poll(() => mesh.inboundViews().length).toBe(0)
    const wires: WireSocket[] = []
    for (let index = 0; index < MAX_HANDSHAKES_PER_SOURCE + 3; index++) {
      wires.push(await WireSocket.dial(meshPort(broker)))
      await expect.poll(() => mesh.inboundViews().length).toBe(Math.min(index + 1, MAX_HANDSHAKES_PER_SOURCE))
    }
    // The three oldest made room; the newest are still waiting for their handshake.
    await expect.poll(() => wires.map((wire) => wire.closed)).toEqual([true, true, true, false, false, false, false])
    for (const wire of wires) wire.destroy()
    await expect.poll(() => mesh.inboundViews().length).toBe(0)
  })

  it(`keeps at most ${MAX_HANDSHAKES} handshakes in all, and a peer with the secret still gets through`, async () => {
    const mesh = broker.app.mesh!
    await expect.poll(() => mesh.inboundViews().length).toBe(0)
    // Every budget full: four silent connections from each of five other loopback addresses.
    const sources = ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5', '127.0.0.6']
    const wires: WireSocket[] = []
    for (const source of sources) {
      for (let index = 0; index < MAX_HANDSHAKES_PER_SOURCE; index++) {
        wires.push(await WireSocket.dial(meshPort(broker), '127.0.0.1', source))
      }
    }
    await expect.poll(() => mesh.inboundViews().length).toBe(MAX_HANDSHAKES)
    await expect.poll(() => wires.filter((wire) => wire.closed).length).toBe(wires.length - MAX_HANDSHAKES)
    // A peer from a flooded address: the oldest silent connection of that address makes room for it.
    const peer = await dialAndHandshake(meshPort(broker), SECRET, { serverId: 'late-peer', localAddress: '127.0.0.6' })
    peer.send(heartbeat())
    await expect.poll(() => mesh.inboundViews().find((view) => view.serverId === 'late-peer')?.framesIn).toBe(1)
    expect(peer.wire.closed).toBe(false)
    // An authenticated connection leaves the handshake budget: a new silent one takes its place.
    const after = await WireSocket.dial(meshPort(broker), '127.0.0.1', '127.0.0.7')
    await expect.poll(() => mesh.inboundViews().length).toBe(MAX_HANDSHAKES + 1)
    expect(after.closed).toBe(false)
    for (const wire of [...wires, after, peer.wire]) wire.destroy()
    await expect.poll(() => mesh.inboundViews().length).toBe(0)
  })
})

describe('authenticated inbound connections', () => {
  it(`keeps at most ${MAX_INBOUND}, closing the oldest for a newer one`, async () => {
    const broker = await startTestBroker({
      label: 'mesh_inbound_cap',
      config: { host: '127.0.0.1', mesh: { port: 0, peers: ['127.0.0.1:1'], secret: SECRET } },
    })
    try {
      const mesh = broker.app.mesh!
      const sessions: Awaited<ReturnType<typeof dialAndHandshake>>[] = []
      for (let index = 0; index <= MAX_INBOUND; index++) {
        const session = await dialAndHandshake(meshPort(broker), SECRET, { serverId: `peer-${index}` })
        session.send(heartbeat())
        await expect.poll(() => mesh.inboundViews().find((view) => view.serverId === `peer-${index}`)?.framesIn).toBe(1)
        sessions.push(session)
      }
      await expect.poll(() => sessions.map((session) => session.wire.closed).indexOf(false)).toBe(1)
      expect(sessions.filter((session) => session.wire.closed)).toHaveLength(1)
      expect(mesh.inboundViews()).toHaveLength(MAX_INBOUND)
      for (const session of sessions) session.wire.destroy()
    } finally {
      await broker.close()
    }
  })
})

describe('the mesh warnings', () => {
  it('name the address of a dialer that fails authentication', async () => {
    const lines: Record<string, unknown>[] = []
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString('utf8').split('\n')) if (line !== '') lines.push(JSON.parse(line))
        done()
      },
    })
    const log = createLogger({ level: 'warn', json: true, serverId: 'warn-test', destination })
    const mesh = new Mesh({
      serverId: 'warn-test',
      instance: 'warn-test-instance',
      host: '127.0.0.1',
      port: 0,
      peers: [],
      secret: SECRET,
      heartbeatMs: 1000,
      deadThresholdMs: 5000,
      log,
      onHint: () => undefined,
    })
    await mesh.start()
    try {
      const session = await dialAndHandshake(mesh.port, 'not-the-secret-not-the-secret-not-it')
      const local = `127.0.0.1:${session.wire.socket.localPort}`
      await session.wire.whenClosed
      await expect
        .poll(() => lines.find((line) => line.msg?.toString().startsWith('mesh authentication failed')))
        .toBeTruthy()
      const warning = lines.find((line) => line.msg?.toString().startsWith('mesh authentication failed'))!
      expect(warning).toMatchObject({ remote: local, reason: 'bad-proof' })
    } finally {
      await mesh.close()
    }
  })
})

describe('the mesh as a dialer', () => {
  it('closes its link when its own frame is reflected back, counting an auth failure', async () => {
    const acceptor = await wireAcceptor(SECRET)
    const broker = await startTestBroker({
      label: 'mesh_reflect',
      config: { host: '127.0.0.1', mesh: { port: 0, peers: [`127.0.0.1:${acceptor.port}`], secret: SECRET } },
    })
    try {
      const session = await acceptor.nextSession()
      // The broker sends a heartbeat at once on a new connection; send it straight back.
      const frame = await session.wire.next()
      const prefix = Buffer.alloc(4)
      prefix.writeUInt32BE(frame.length)
      session.wire.write(Buffer.concat([prefix, frame]))
      await session.wire.whenClosed
      expect(await authFailures(broker)).toBe(1)
      const [peer] = broker.app.mesh!.peerViews()
      expect(peer?.authFailures).toBe(1)
      expect(peer?.lastError).toMatch(/MAC/)
    } finally {
      await broker.close()
      await acceptor.close()
    }
  })
})
