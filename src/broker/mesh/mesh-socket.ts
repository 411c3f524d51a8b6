/**
 * One mesh connection, either side (docs/operations.md, "Frames", "Handshake" and "Frame authentication"): the HELLO
 * handshake within its deadline, then authenticated frames. The dialer sends (dialer-to-acceptor key); the acceptor
 * reads. Anything the dialer receives after the handshake must verify with the other direction's key, so a frame
 * reflected back to its sender fails. Every refusal closes the connection and says why.
 */
import type { Socket } from 'node:net'
import { FrameReader } from './frame-reader.js'
import {
  directionKey,
  encodePlainFrame,
  encodeSealedFrame,
  newNonce,
  openSealedFrame,
  proofMatches,
  proofOf,
  PROTOCOL_VERSION,
  transcript,
  type HelloChallenge,
  type HelloIdentity,
  type HelloOffer,
  type Role,
} from './protocol.js'

/** Why a connection closed. The ones in {@link AUTH_FAILURES} count as authentication failures. */
export type CloseReason =
  | 'bad-hello'
  | 'bad-version'
  | 'bad-proof'
  | 'mac'
  | 'seq'
  | 'oversized'
  | 'stalled'
  | 'handshake-timeout'
  | 'idle'
  | 'self'
  | 'remote-closed'
  | 'socket-error'
  | 'crowded'
  | 'local'

/** Refusals that mean the other side does not hold the secret or tampers with frames. */
export const AUTH_FAILURES: ReadonlySet<CloseReason> = new Set(['bad-hello', 'bad-version', 'bad-proof', 'mac', 'seq'])

/** What a close means to an operator reading `lastError`. */
export const CLOSE_TEXT: Record<CloseReason, string> = {
  'bad-hello': 'handshake broken: a frame other than the expected HELLO',
  'bad-version': 'handshake refused: unknown protocol version',
  'bad-proof': 'handshake refused: wrong proof (QUEEN_SYNC_SECRET differs)',
  mac: 'frame refused: MAC does not verify',
  seq: 'frame refused: sequence number out of order (replay or loss)',
  oversized: 'frame refused: longer than 64 KiB',
  stalled: 'closed: stalled mid-frame',
  'handshake-timeout': 'closed: handshake not finished in time',
  idle: 'closed: nothing received (not even heartbeats)',
  self: 'connection to itself',
  'remote-closed': 'closed by the other side',
  'socket-error': 'socket error',
  crowded: 'closed: too many connections at once; the oldest made room for a newer one',
  local: 'closed here',
}

/** A frame body after authentication: every body carries `type`, `from` and `ts`. */
export interface MeshFrame {
  type: string
  from?: unknown
  ts?: unknown
  [field: string]: unknown
}

/** Timing and identity of one connection. */
export interface MeshSocketOptions {
  role: Role
  /** The shared secret; '' in open mode. */
  secret: string
  self: { serverId: string; instance: string }
  handshakeTimeoutMs: number
  stallTimeoutMs: number
  /** Close when nothing arrives this long (the reading side); undefined = never. */
  idleTimeoutMs?: number
  /** Bytes queued for writing above which frames are dropped (hints are best effort). */
  maxQueuedBytes?: number
}

/** What a connection reports. */
export interface MeshSocketEvents {
  established?(remote: HelloIdentity): void
  frame?(frame: MeshFrame, bytes: number): void
  closed?(reason: CloseReason, detail: string | undefined): void
}

type Phase = 'awaiting-offer' | 'awaiting-challenge' | 'awaiting-proof' | 'open' | 'closed'

const DEFAULT_MAX_QUEUED_BYTES = 1024 * 1024

/** A mesh connection over a connected socket. */
export class MeshSocket {
  private readonly socket: Socket
  private readonly options: MeshSocketOptions
  private readonly events: MeshSocketEvents
  private readonly reader = new FrameReader()
  private readonly local: HelloIdentity
  private phase: Phase
  private remoteIdentity: HelloIdentity | undefined
  private script: Buffer | undefined
  private sendKey: Buffer | undefined
  private receiveKey: Buffer | undefined
  private sendSeq = 1n
  private receiveSeq = 1n
  private handshakeTimer: NodeJS.Timeout | undefined
  private stallTimer: NodeJS.Timeout | undefined
  private idleTimer: NodeJS.Timeout | undefined
  /** The other side announced this process's own instance: a connection to itself. */
  loopsToSelf = false
  /**
   * `ip:port` of the other side, read once at the start: a destroyed socket forgets its address, and the
   * warnings written as a connection closes must still name it (issue 40).
   */
  readonly remoteAddress: string

  constructor(socket: Socket, options: MeshSocketOptions, events: MeshSocketEvents) {
    this.socket = socket
    this.options = options
    this.events = events
    this.local = { ...options.self, nonce: newNonce() }
    this.phase = options.role === 'dialer' ? 'awaiting-challenge' : 'awaiting-offer'
    this.remoteAddress = addressOf(socket)
    socket.setNoDelay(true)
    socket.on('data', (chunk: Buffer) => this.receive(chunk))
    socket.on('error', (error) => this.close('socket-error', error.message))
    socket.on('close', () => this.close('remote-closed'))
    this.handshakeTimer = setTimeout(() => this.close('handshake-timeout'), options.handshakeTimeoutMs)
    if (options.role === 'dialer') {
      const offer: HelloOffer = { type: 'HELLO', phase: 'offer', v: PROTOCOL_VERSION, ...this.local }
      this.write(encodePlainFrame(offer))
    }
  }

  /** The other side, once its HELLO arrived. */
  get remote(): HelloIdentity | undefined {
    return this.remoteIdentity
  }

  /** True once both sides proved the secret. */
  get open(): boolean {
    return this.phase === 'open'
  }

  /**
   * True once the other side sent a well-formed HELLO offer (acceptor side): it is speaking the protocol,
   * which a connection that sends nothing is not, so the handshake budget drops silent ones first.
   */
  get offered(): boolean {
    return this.phase === 'awaiting-proof' || this.phase === 'open'
  }

  /** Sends an authenticated frame (dialer, after the handshake); false when not sent. */
  send(body: MeshFrame): boolean {
    if (this.phase !== 'open' || !this.sendKey || this.options.role !== 'dialer') return false
    if (this.socket.writableLength > (this.options.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES)) return false
    const frame = encodeSealedFrame(this.sendKey, this.sendSeq, body)
    this.sendSeq += 1n
    this.write(frame)
    return true
  }

  /** Closes the connection (once); `closed` reports the first reason. */
  close(reason: CloseReason, detail?: string): void {
    if (this.phase === 'closed') return
    this.phase = 'closed'
    clearTimeout(this.handshakeTimer)
    clearTimeout(this.stallTimer)
    clearTimeout(this.idleTimer)
    this.socket.destroy()
    this.events.closed?.(reason, detail)
  }

  private write(frame: Buffer): void {
    if (!this.socket.destroyed) this.socket.write(frame)
  }

  private get isClosed(): boolean {
    return this.phase === 'closed'
  }

  private receive(chunk: Buffer): void {
    if (this.isClosed) return
    const result = this.reader.push(chunk)
    if ('oversized' in result) return this.close('oversized', `declared ${result.oversized} bytes`)
    for (const frame of result.frames) {
      if (this.isClosed) return
      if (this.phase === 'open') this.receiveSealed(frame)
      else this.receiveHandshake(frame)
    }
    if (this.isClosed) return
    // The stall clock runs from the first bytes of the frame still incomplete; a trickle does not reset it,
    // only a completed frame does.
    if (result.frames.length > 0 || !this.reader.midFrame) {
      clearTimeout(this.stallTimer)
      this.stallTimer = undefined
    }
    if (this.reader.midFrame) {
      this.stallTimer ??= setTimeout(() => this.close('stalled'), this.options.stallTimeoutMs)
    }
  }

  private receiveHandshake(frame: Buffer): void {
    let body: Record<string, unknown>
    try {
      const parsed: unknown = JSON.parse(frame.toString('utf8'))
      if (parsed === null || typeof parsed !== 'object') return this.close('bad-hello', 'not a JSON object')
      body = parsed as Record<string, unknown>
    } catch {
      return this.close('bad-hello', 'not JSON')
    }
    if (body.type !== 'HELLO') return this.close('bad-hello', `${String(body.type)} before the handshake`)
    const { secret, role } = this.options
    if (this.phase === 'awaiting-offer') {
      if (body.phase !== 'offer') return this.close('bad-hello', `phase ${String(body.phase)} instead of offer`)
      if (body.v !== PROTOCOL_VERSION) return this.close('bad-version', `version ${String(body.v)}`)
      const remote = identityOf(body)
      if (!remote) return this.close('bad-hello', 'offer without serverId, instance and a 32-byte nonce')
      this.remoteIdentity = remote
      this.loopsToSelf = remote.instance === this.local.instance
      this.script = transcript(remote, this.local)
      const challenge: HelloChallenge = {
        type: 'HELLO',
        phase: 'challenge',
        v: PROTOCOL_VERSION,
        ...this.local,
        proof: proofOf(secret, 'acceptor', this.script),
      }
      this.phase = 'awaiting-proof'
      return this.write(encodePlainFrame(challenge))
    }
    if (this.phase === 'awaiting-challenge') {
      if (body.phase !== 'challenge') return this.close('bad-hello', `phase ${String(body.phase)} instead of challenge`)
      if (body.v !== PROTOCOL_VERSION) return this.close('bad-version', `version ${String(body.v)}`)
      const remote = identityOf(body)
      if (!remote) return this.close('bad-hello', 'challenge without serverId, instance and a 32-byte nonce')
      this.remoteIdentity = remote
      if (remote.instance === this.local.instance) {
        this.loopsToSelf = true
        return this.close('self')
      }
      const script = transcript(this.local, remote)
      if (!proofMatches(secret, 'acceptor', script, body.proof)) return this.close('bad-proof')
      this.write(encodePlainFrame({ type: 'HELLO', phase: 'proof', proof: proofOf(secret, 'dialer', script) }))
      return this.establish(script, role)
    }
    // awaiting-proof
    if (body.phase !== 'proof') return this.close('bad-hello', `phase ${String(body.phase)} instead of proof`)
    if (!this.script || !proofMatches(secret, 'dialer', this.script, body.proof)) return this.close('bad-proof')
    this.establish(this.script, role)
  }

  private establish(script: Buffer, role: Role): void {
    const d2a = directionKey(this.options.secret, 'd2a', script)
    const a2d = directionKey(this.options.secret, 'a2d', script)
    this.sendKey = role === 'dialer' ? d2a : a2d
    this.receiveKey = role === 'dialer' ? a2d : d2a
    this.phase = 'open'
    clearTimeout(this.handshakeTimer)
    this.armIdle()
    if (this.remoteIdentity) this.events.established?.(this.remoteIdentity)
  }

  private armIdle(): void {
    const idle = this.options.idleTimeoutMs
    if (idle === undefined) return
    clearTimeout(this.idleTimer)
    this.idleTimer = setTimeout(() => this.close('idle'), idle)
  }

  private receiveSealed(frame: Buffer): void {
    if (!this.receiveKey) return this.close('mac')
    const opened = openSealedFrame(this.receiveKey, this.receiveSeq, frame)
    if (!opened.ok) return this.close(opened.reason === 'seq' ? 'seq' : 'mac')
    this.receiveSeq += 1n
    this.armIdle()
    let body: unknown
    try {
      body = JSON.parse(opened.json.toString('utf8'))
    } catch {
      body = undefined
    }
    // Authentic but unreadable bodies are treated like unknown types: ignored (forward compatibility).
    const usable = body !== null && typeof body === 'object' && typeof (body as MeshFrame).type === 'string'
    this.events.frame?.(usable ? (body as MeshFrame) : { type: '?' }, frame.length + 4)
  }
}

/** `ip:port` of a connected socket's other side (`[v6]:port` for IPv6). */
function addressOf(socket: Socket): string {
  const host = socket.remoteAddress ?? '?'
  return `${host.includes(':') ? `[${host}]` : host}:${socket.remotePort ?? '?'}`
}

function identityOf(body: Record<string, unknown>): HelloIdentity | undefined {
  const { serverId, instance, nonce } = body
  if (typeof serverId !== 'string' || typeof instance !== 'string' || typeof nonce !== 'string') return undefined
  if (serverId.length > 256 || instance.length > 256 || Buffer.from(nonce, 'base64').length !== 32) return undefined
  return { serverId, instance, nonce }
}
