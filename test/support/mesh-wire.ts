/**
 * A hand-driven mesh peer for protocol tests: raw TCP sockets and the wire format of docs/operations.md, "Frames" and
 * "Handshake" written byte by byte, so a test can send what a real broker never would (forged MACs, replays, skipped
 * sequence numbers, reflected frames, giant length prefixes, half frames).
 */
import { connect, createServer, type Server, type Socket } from 'node:net'
import { randomUUID } from 'node:crypto'
import {
  directionKey,
  encodePlainFrame,
  encodeSealedFrame,
  newNonce,
  proofOf,
  transcript,
  type HelloIdentity,
} from '../../src/broker/mesh/protocol.js'
import { FrameReader } from '../../src/broker/mesh/frame-reader.js'

/** A raw socket with a frame queue and a close flag. */
export class WireSocket {
  readonly socket: Socket
  private readonly reader = new FrameReader()
  private readonly frames: Buffer[] = []
  private waiting: ((frame: Buffer) => void) | undefined
  closed = false
  readonly whenClosed: Promise<void>

  constructor(socket: Socket) {
    this.socket = socket
    this.whenClosed = new Promise((resolve) => socket.on('close', () => resolve()))
    socket.on('close', () => (this.closed = true))
    socket.on('error', () => undefined)
    socket.on('data', (chunk: Buffer) => {
      const result = this.reader.push(chunk)
      if ('frames' in result) for (const frame of result.frames) this.deliver(frame)
    })
  }

  /** Connects to host:port, from `localAddress` when given (another loopback address is another source). */
  static async dial(port: number, host = '127.0.0.1', localAddress?: string): Promise<WireSocket> {
    const socket = connect({ host, port, ...(localAddress === undefined ? {} : { localAddress }) })
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve)
      socket.once('error', reject)
    })
    return new WireSocket(socket)
  }

  private deliver(frame: Buffer): void {
    const waiting = this.waiting
    if (waiting) {
      this.waiting = undefined
      waiting(frame)
    } else this.frames.push(frame)
  }

  /** The next frame body received (without its length prefix). */
  next(timeoutMs = 5000): Promise<Buffer> {
    const queued = this.frames.shift()
    if (queued) return Promise.resolve(queued)
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no frame arrived')), timeoutMs)
      this.waiting = (frame) => {
        clearTimeout(timer)
        resolve(frame)
      }
    })
  }

  /** The next frame parsed as a handshake JSON. */
  async nextJson(): Promise<Record<string, unknown>> {
    return JSON.parse((await this.next()).toString('utf8')) as Record<string, unknown>
  }

  write(bytes: Buffer): void {
    this.socket.write(bytes)
  }

  destroy(): void {
    this.socket.destroy()
  }
}

/** The keys of a finished handshake and a sealed-frame writer with its own sequence counter. */
export interface WireSession {
  wire: WireSocket
  sendKey: Buffer
  receiveKey: Buffer
  remote: HelloIdentity
  /** Encodes a frame with `seq` (default: the next one) and `key` (default: the send key). */
  frame(body: object, options?: { seq?: bigint; key?: Buffer }): Buffer
  /** Writes the next frame. */
  send(body: object): Buffer
}

function session(wire: WireSocket, sendKey: Buffer, receiveKey: Buffer, remote: HelloIdentity): WireSession {
  let seq = 1n
  const frame = (body: object, options: { seq?: bigint; key?: Buffer } = {}) => {
    const used = options.seq ?? seq
    if (options.seq === undefined) seq += 1n
    return encodeSealedFrame(options.key ?? sendKey, used, body)
  }
  return {
    wire,
    sendKey,
    receiveKey,
    remote,
    frame,
    send(body) {
      const bytes = frame(body)
      wire.write(bytes)
      return bytes
    },
  }
}

/** Runs the dialer's side of HELLO against a broker's mesh port with `secret`. */
export async function dialAndHandshake(
  port: number,
  secret: string,
  identity: { serverId?: string; instance?: string; localAddress?: string } = {},
): Promise<WireSession> {
  const wire = await WireSocket.dial(port, '127.0.0.1', identity.localAddress)
  const local: HelloIdentity = {
    serverId: identity.serverId ?? 'wire-test',
    instance: identity.instance ?? randomUUID(),
    nonce: newNonce(),
  }
  wire.write(encodePlainFrame({ type: 'HELLO', phase: 'offer', v: 1, ...local }))
  const challenge = await wire.nextJson()
  const remote = challenge as unknown as HelloIdentity
  const script = transcript(local, remote)
  wire.write(encodePlainFrame({ type: 'HELLO', phase: 'proof', proof: proofOf(secret, 'dialer', script) }))
  return session(wire, directionKey(secret, 'd2a', script), directionKey(secret, 'a2d', script), remote)
}

/** A listening acceptor that runs the acceptor's side of HELLO for every broker that dials it. */
export async function wireAcceptor(secret: string): Promise<{
  server: Server
  port: number
  sessions: WireSession[]
  nextSession(): Promise<WireSession>
  close(): Promise<void>
}> {
  const sessions: WireSession[] = []
  let waiting: ((value: WireSession) => void) | undefined
  const server = createServer((socket) => {
    const wire = new WireSocket(socket)
    void (async () => {
      const offer = await wire.nextJson()
      const remote = offer as unknown as HelloIdentity
      const local: HelloIdentity = { serverId: 'wire-acceptor', instance: randomUUID(), nonce: newNonce() }
      const script = transcript(remote, local)
      wire.write(
        encodePlainFrame({
          type: 'HELLO',
          phase: 'challenge',
          v: 1,
          ...local,
          proof: proofOf(secret, 'acceptor', script),
        }),
      )
      await wire.nextJson() // the dialer's proof
      const made = session(wire, directionKey(secret, 'a2d', script), directionKey(secret, 'd2a', script), remote)
      sessions.push(made)
      waiting?.(made)
      waiting = undefined
    })().catch(() => undefined)
  })
  await new Promise<void>((resolve) => server.listen({ host: '127.0.0.1', port: 0 }, resolve))
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  return {
    server,
    port,
    sessions,
    nextSession: () =>
      sessions.length > 0 ? Promise.resolve(sessions.shift()!) : new Promise((resolve) => (waiting = resolve)),
    async close() {
      for (const made of sessions) made.wire.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/** A running flood of idle connections (see {@link idleFlood}). */
export interface IdleFlood {
  /** Connections opened so far. */
  readonly opened: number
  /** Connections the broker closed so far. */
  readonly closedByBroker: number
  /** Stops reopening and closes every connection. */
  stop(): Promise<void>
}

/**
 * The outsider of issue 40: `connections` plain TCP connections to a mesh port that never send a byte,
 * each reopened `reopenAfterMs` after the broker closes it.
 */
export function idleFlood(
  port: number,
  options: { connections: number; reopenAfterMs: number; localAddress?: string },
): IdleFlood {
  let stopped = false
  let opened = 0
  let closedByBroker = 0
  const live = new Set<Socket>()
  const timers = new Set<NodeJS.Timeout>()
  const open = () => {
    if (stopped) return
    const socket = connect({
      host: '127.0.0.1',
      port,
      ...(options.localAddress === undefined ? {} : { localAddress: options.localAddress }),
    })
    opened += 1
    live.add(socket)
    socket.on('error', () => undefined)
    socket.on('close', () => {
      live.delete(socket)
      if (stopped) return
      closedByBroker += 1
      const timer = setTimeout(() => {
        timers.delete(timer)
        open()
      }, options.reopenAfterMs)
      timers.add(timer)
    })
  }
  for (let index = 0; index < options.connections; index++) open()
  return {
    get opened() {
      return opened
    },
    get closedByBroker() {
      return closedByBroker
    },
    async stop() {
      stopped = true
      for (const timer of timers) clearTimeout(timer)
      const closing = [...live].map((socket) => new Promise((resolve) => socket.once('close', resolve)))
      for (const socket of live) socket.destroy()
      await Promise.all(closing)
    },
  }
}
