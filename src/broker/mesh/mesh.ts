/**
 * The mesh of one broker (docs/operations.md, "The mesh"): listens for peers' connections and reads their frames,
 * dials every configured peer and sends its own frames only there, redialing with jittered backoff. It
 * carries hints (wakes coalesced over 10 ms, maintenance flags, cache invalidation), heartbeats with a
 * round-trip time and every peer's stats. Inbound effects go to `onHint` and are never re-broadcast.
 */
import { createServer, connect, type Server, type Socket } from 'node:net'
import type { Logger } from 'pino'
import type { Hint, WakeHint } from '../db/hint-channel.js'
import { AUTH_FAILURES, CLOSE_TEXT, MeshSocket, type CloseReason, type MeshFrame } from './mesh-socket.js'
import type { PeerAddress } from './peers.js'
import { MAC_BYTES, MAX_FRAME_BYTES, SEQ_BYTES, type HelloIdentity } from './protocol.js'
import type { MeshPeer, MeshPeerStats, PeerState } from '../../wire/index.js'

/** State of a configured peer as `mesh status` shows it (src/wire/system.ts). */
export type { PeerState }

/** The PEER_STATS body (docs/operations.md, "Frame types"), as the mesh route shows it. */
export type PeerStats = MeshPeerStats

/** Where a frame's counters go (queen_mesh_frames_total, queen_mesh_auth_failures_total). */
export interface MeshCounters {
  frame(type: string, direction: 'in' | 'out'): void
  authFailure(): void
}

/** Everything a mesh needs. */
export interface MeshOptions {
  serverId: string
  /** Random per process; the same id the PostgreSQL hint channel stamps, so both paths name one origin. */
  instance: string
  /** Bind address and port of the listener. */
  host: string
  port: number
  peers: readonly PeerAddress[]
  /** '' = open mode. */
  secret: string
  heartbeatMs: number
  deadThresholdMs: number
  log: Logger
  counters?: MeshCounters
  /** Inbound hints; `origin` is the sending process's instance id. */
  onHint(hint: Hint, origin: string): void
  /** This broker's PEER_STATS body. */
  stats?: () => PeerStats
  /** Timing (tests shorten them). */
  timing?: Partial<MeshTiming>
}

/** The protocol's clocks (docs/operations.md, "Peers", "Frames", "Handshake" and "Frame types"). */
export interface MeshTiming {
  handshakeTimeoutMs: number
  stallTimeoutMs: number
  wakeCoalesceMs: number
  peerStatsMs: number
  backoffInitialMs: number
  backoffMaxMs: number
  /** A connection that lasted this long resets the backoff. */
  backoffResetMs: number
}

const DEFAULT_TIMING: MeshTiming = {
  handshakeTimeoutMs: 5000,
  stallTimeoutMs: 10_000,
  wakeCoalesceMs: 10,
  peerStatsMs: 5000,
  backoffInitialMs: 250,
  backoffMaxMs: 10_000,
  backoffResetMs: 30_000,
}

/**
 * Authenticated inbound connections kept at once (one per peer process is normal); past it the oldest is
 * closed, which is most likely a restarted peer's stale one.
 */
export const MAX_INBOUND = 16
/**
 * Handshakes in progress at once, in all and from one source address (issue 40). Past either budget the
 * oldest unauthenticated connection is closed, silent ones first, so a flood of idle connections cannot
 * keep a peer that speaks the protocol out: a peer sends its HELLO offer as soon as it connects, and
 * proves the secret one round trip later.
 */
export const MAX_HANDSHAKES = 16
export const MAX_HANDSHAKES_PER_SOURCE = 4
const MAX_WAKES_PER_FRAME = 500
const WARN_EVERY_MS = 10_000

/** The view of one configured peer. */
export type PeerView = Omit<MeshPeer, 'since' | 'lastHeartbeatAt'> & {
  since: number | null
  lastHeartbeatAt: number | null
  stats: PeerStats | null
}

/** The view of one accepted connection. */
export interface InboundView {
  remoteAddress: string
  serverId: string | null
  since: number
  framesIn: number
}

interface Link {
  peer: PeerAddress
  state: PeerState
  since: number | null
  socket: MeshSocket | undefined
  /** A dial whose TCP connect has not finished. */
  pending: Socket | undefined
  remote: HelloIdentity | undefined
  attempts: number
  timer: NodeJS.Timeout | undefined
  openedAt: number | undefined
  framesOut: number
  authFailures: number
  lastError: string | null
  everConnected: boolean
  restarts: number
  restartedAt: number | null
}

/** What the heartbeats and stats of a peer process told us (keyed by its instance id). */
interface Heard {
  serverId: string
  lastHeartbeatAt: number
  /** Their last heartbeat's own timestamp and when it arrived: echoed back for their RTT. */
  lastTs: number
  rttMs: number | null
  framesIn: number
  stats: PeerStats | null
}

interface Inbound {
  socket: MeshSocket
  /** The source address without the port, read at accept (the handshake budget per source). */
  host: string
  since: number
  framesIn: number
}

/** The mesh of one broker. */
export class Mesh {
  private readonly options: MeshOptions
  private readonly timing: MeshTiming
  private readonly log: Logger
  private readonly startedAt = Date.now()
  private server: Server | undefined
  private readonly links: Link[]
  private readonly inbound = new Set<Inbound>()
  private readonly heard = new Map<string, Heard>()
  private pendingWakes = new Map<string, WakeHint>()
  private wakeTimer: NodeJS.Timeout | undefined
  private heartbeatTimer: NodeJS.Timeout | undefined
  private statsTimer: NodeJS.Timeout | undefined
  private closed = false
  private readonly lastWarnAt = new Map<string, number>()
  /** Totals for tests and the view. */
  readonly totals = {
    authFailures: 0,
    unknownFrames: 0,
    framesIn: 0,
    framesOut: 0,
    /** Connections closed to make room: unauthenticated ones over a handshake budget, authenticated over MAX_INBOUND. */
    crowdedOut: 0,
    heartbeatsIn: 0,
  }

  constructor(options: MeshOptions) {
    this.options = options
    this.timing = { ...DEFAULT_TIMING, ...options.timing }
    this.log = options.log.child({ component: 'mesh' })
    this.links = options.peers.map((peer) => ({
      peer,
      state: 'connecting',
      since: null,
      socket: undefined,
      pending: undefined,
      remote: undefined,
      attempts: 0,
      timer: undefined,
      openedAt: undefined,
      framesOut: 0,
      authFailures: 0,
      lastError: null,
      everConnected: false,
      restarts: 0,
      restartedAt: null,
    }))
  }

  /** `hmac` with a secret, `off` in open mode. */
  get auth(): 'hmac' | 'off' {
    return this.options.secret === '' ? 'off' : 'hmac'
  }

  /** The bound port (the configured one, or the one the OS chose for port 0). */
  get port(): number {
    const address = this.server?.address()
    return typeof address === 'object' && address ? address.port : this.options.port
  }

  /** Whether the listener is bound. */
  get listening(): boolean {
    return this.server?.listening ?? false
  }

  /** Peers whose connection (dialed by us) is open. */
  get peersConnected(): number {
    return this.links.filter((link) => link.state === 'connected').length
  }

  /** Binds the listener (a failure names QUEEN_MESH_PORT), then dials every peer. */
  async start(): Promise<void> {
    const server = createServer((socket) => this.accept(socket))
    this.server = server
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen({ host: this.options.host, port: this.options.port }, () => {
        server.off('error', reject)
        resolve()
      })
    }).catch((error: unknown) => {
      throw new Error(
        `cannot bind the mesh on ${this.options.host}:${this.options.port} (QUEEN_MESH_PORT): ${(error as Error).message}`,
        { cause: error },
      )
    })
    server.on('error', (error) => this.log.warn({ err: error }, 'mesh listener error'))
    for (const link of this.links) this.dial(link)
    this.heartbeatTimer = setInterval(() => this.heartbeat(), this.options.heartbeatMs)
    this.statsTimer = setInterval(() => this.sendStats(), this.timing.peerStatsMs)
    this.heartbeatTimer.unref()
    this.statsTimer.unref()
  }

  /** Sends a hint to every connected peer; wakes are coalesced over 10 ms. */
  publish(hint: Hint): void {
    if (this.closed) return
    if (hint.type !== 'POP_WAKE') return this.broadcast(hint)
    for (const wake of hint.wakes) {
      this.pendingWakes.set(`${wake.tenant}\u0000${wake.queue}\u0000${wake.partition ?? ''}`, wake)
    }
    this.wakeTimer ??= setTimeout(() => {
      this.wakeTimer = undefined
      this.flushWakes()
    }, this.timing.wakeCoalesceMs)
  }

  /** Stops dialing, closes every connection and the listener. */
  async close(): Promise<void> {
    this.closed = true
    clearTimeout(this.wakeTimer)
    clearInterval(this.heartbeatTimer)
    clearInterval(this.statsTimer)
    for (const link of this.links) {
      clearTimeout(link.timer)
      link.pending?.destroy()
      link.socket?.close('local')
    }
    for (const inbound of this.inbound) inbound.socket.close('local')
    const server = this.server
    if (server?.listening) await new Promise<void>((resolve) => server.close(() => resolve()))
  }

  /** Every configured peer, for GET /api/v1/system/mesh. */
  peerViews(now: number = Date.now()): PeerView[] {
    return this.links.map((link) => {
      const heard = link.remote ? this.heard.get(link.remote.instance) : undefined
      const alive = heard !== undefined && now - heard.lastHeartbeatAt <= this.options.deadThresholdMs
      return {
        address: link.peer.address,
        serverId: link.remote?.serverId ?? null,
        state: link.state,
        since: link.state === 'connected' ? link.since : null,
        lastHeartbeatAt: heard?.lastHeartbeatAt ?? null,
        rttMs: heard?.rttMs ?? null,
        framesIn: heard?.framesIn ?? 0,
        framesOut: link.framesOut,
        authFailures: link.authFailures,
        lastError: link.lastError,
        restarts: link.restarts,
        everConnected: link.everConnected,
        alive,
        hint: this.hintFor(link, alive, now),
        stats: heard?.stats ?? null,
      }
    })
  }

  /** The `server_health` block of the shared-state stats (docs/http-api.md, "Internal routes"). */
  health(now: number = Date.now()) {
    const views = this.peerViews(now).filter((view) => view.state !== 'self')
    return {
      servers_tracked: views.length,
      servers_alive: views.filter((view) => view.alive).length,
      servers_dead: views.filter((view) => !view.alive).length,
      heartbeats_received: this.totals.heartbeatsIn,
      restarts_detected: views.reduce((sum, view) => sum + view.restarts, 0),
    }
  }

  /** Every accepted connection. */
  inboundViews(): InboundView[] {
    return [...this.inbound].map((inbound) => ({
      remoteAddress: inbound.socket.remoteAddress,
      serverId: inbound.socket.remote?.serverId ?? null,
      since: inbound.since,
      framesIn: inbound.framesIn,
    }))
  }

  private hintFor(link: Link, alive: boolean, now: number): string | null {
    switch (link.state) {
      case 'self':
        return null
      case 'refused':
        return 'the handshake was refused: QUEEN_SYNC_SECRET differs between replicas'
      case 'connected':
        if (link.restartedAt !== null && now - link.restartedAt < 60_000) {
          return 'the peer restarted (new instance id) and reconnected'
        }
        return alive ? null : 'connected but no heartbeat arrives: the peer cannot dial this broker back'
      case 'connecting':
      case 'backoff':
        return link.everConnected
          ? 'the connection was lost; redialing with backoff'
          : `never reachable: check that port ${link.peer.port} is TCP in Services and NetworkPolicies and reachable from here`
    }
  }

  // --- dialing -----------------------------------------------------------------------------------------

  private dial(link: Link): void {
    if (this.closed || link.state === 'self') return
    link.state = link.state === 'refused' ? 'refused' : 'connecting'
    let socket: Socket
    try {
      // Host names are resolved again at every dial: pod addresses change.
      socket = connect({ host: link.peer.host, port: link.peer.port })
    } catch (error) {
      this.lost(link, 'socket-error', (error as Error).message)
      return
    }
    socket.setKeepAlive(true, this.options.deadThresholdMs)
    link.pending = socket
    // A black-holed address never answers the SYN: give up like a handshake that does not finish.
    const connectTimer = setTimeout(() => {
      link.pending = undefined
      socket.destroy()
      this.lost(link, 'socket-error', `connect timed out after ${this.timing.handshakeTimeoutMs} ms`)
    }, this.timing.handshakeTimeoutMs)
    const onEarlyError = (error: Error) => {
      clearTimeout(connectTimer)
      link.pending = undefined
      this.lost(link, 'socket-error', error.message)
    }
    socket.once('error', onEarlyError)
    socket.once('connect', () => {
      clearTimeout(connectTimer)
      link.pending = undefined
      socket.off('error', onEarlyError)
      if (this.closed) return void socket.destroy()
      link.socket = new MeshSocket(socket, this.socketOptions('dialer'), {
        established: (remote) => this.connected(link, remote),
        closed: (reason, detail) => {
          link.socket = undefined
          this.lost(link, reason, detail)
        },
      })
    })
  }

  private connected(link: Link, remote: HelloIdentity): void {
    if (link.remote && link.remote.instance !== remote.instance && link.everConnected) {
      link.restarts += 1
      link.restartedAt = Date.now()
      this.heard.delete(link.remote.instance)
    }
    if (remote.serverId === this.options.serverId) {
      this.warnLimited(
        `dup:${remote.instance}`,
        { peer: link.peer.address, server_id: remote.serverId },
        'mesh peer has the same QUEEN_SERVER_ID as this broker (two processes with one id)',
      )
    }
    link.remote = remote
    link.state = 'connected'
    link.since = Date.now()
    link.openedAt = link.since
    link.everConnected = true
    link.lastError = null
    this.log.info({ peer: link.peer.address, server_id: remote.serverId, rtt_ms: null }, 'mesh peer connected')
    // The first heartbeat at once, so the peer learns of us without waiting a period.
    this.sendHeartbeat(link)
  }

  private lost(link: Link, reason: CloseReason, detail: string | undefined): void {
    const wasConnected = link.state === 'connected'
    const lastedLong = link.openedAt !== undefined && Date.now() - link.openedAt >= this.timing.backoffResetMs
    link.openedAt = undefined
    if (lastedLong) link.attempts = 0
    if (reason === 'self') {
      link.state = 'self'
      link.remote = { serverId: this.options.serverId, instance: this.options.instance, nonce: '' }
      link.lastError = null
      this.log.info({ peer: link.peer.address }, 'mesh peer is this broker (self)')
      return
    }
    link.lastError = detail === undefined ? CLOSE_TEXT[reason] : `${CLOSE_TEXT[reason]}: ${detail}`
    if (AUTH_FAILURES.has(reason)) {
      link.authFailures += 1
      this.authFailure(link.peer.address, reason, detail)
      link.state = 'refused'
    } else {
      link.state = 'backoff'
    }
    if (wasConnected) {
      this.log.info(
        { peer: link.peer.address, server_id: link.remote?.serverId, error: link.lastError },
        'mesh peer lost',
      )
    }
    if (this.closed || reason === 'local') return
    const base = Math.min(this.timing.backoffMaxMs, this.timing.backoffInitialMs * 2 ** link.attempts)
    link.attempts += 1
    const delay = base * (0.8 + Math.random() * 0.4)
    clearTimeout(link.timer)
    link.timer = setTimeout(() => {
      link.timer = undefined
      this.dial(link)
    }, delay)
    link.timer.unref()
  }

  // --- accepting ---------------------------------------------------------------------------------------

  private accept(socket: Socket): void {
    if (this.closed) return void socket.destroy()
    // Read now: once the socket is destroyed its address is gone, and the warnings must name it.
    const host = socket.remoteAddress ?? '?'
    this.makeRoomForHandshake(host)
    const inbound: Inbound = { socket: undefined as unknown as MeshSocket, host, since: Date.now(), framesIn: 0 }
    inbound.socket = new MeshSocket(socket, this.socketOptions('acceptor'), {
      established: () => this.makeRoomForAuthenticated(inbound),
      frame: (frame) => this.receive(inbound, frame),
      closed: (reason, detail) => {
        this.inbound.delete(inbound)
        const remote = inbound.socket.remoteAddress
        if (AUTH_FAILURES.has(reason)) this.authFailure(remote, reason, detail)
        else if (reason === 'oversized' || reason === 'stalled') {
          this.warnLimited(`proto:${host}`, { remote, reason }, `mesh connection closed: ${CLOSE_TEXT[reason]}`)
        }
      },
    })
    this.inbound.add(inbound)
  }

  /**
   * Before a new connection joins the handshakes in progress: past the budget of its source address, or
   * past the budget in all, the oldest unauthenticated connection (of that source, or of any) is closed,
   * one that has sent nothing before one that has sent its HELLO offer. The newcomer is never the one
   * refused, so a peer dialing in always gets its round trip.
   */
  private makeRoomForHandshake(host: string): void {
    const handshaking = [...this.inbound].filter((inbound) => !inbound.socket.open)
    const sameSource = handshaking.filter((inbound) => inbound.host === host)
    const crowd =
      sameSource.length >= MAX_HANDSHAKES_PER_SOURCE
        ? sameSource
        : handshaking.length >= MAX_HANDSHAKES
          ? handshaking
          : []
    // The set keeps insertion order: the first match is the oldest.
    const victim = crowd.find((inbound) => !inbound.socket.offered) ?? crowd[0]
    if (victim) this.crowdOut(victim, 'mesh handshake budget full: closed the oldest unauthenticated connection')
  }

  /** A connection just authenticated: past MAX_INBOUND authenticated ones, the oldest other is closed. */
  private makeRoomForAuthenticated(newcomer: Inbound): void {
    const open = [...this.inbound].filter((inbound) => inbound !== newcomer && inbound.socket.open)
    if (open.length >= MAX_INBOUND && open[0]) {
      this.crowdOut(open[0], 'mesh inbound connections full: closed the oldest authenticated one')
    }
  }

  private crowdOut(inbound: Inbound, message: string): void {
    this.totals.crowdedOut += 1
    this.warnLimited(`crowded:${inbound.host}`, { remote: inbound.socket.remoteAddress }, message)
    inbound.socket.close('crowded')
  }

  private socketOptions(role: 'dialer' | 'acceptor') {
    return {
      role,
      secret: this.options.secret,
      self: { serverId: this.options.serverId, instance: this.options.instance },
      handshakeTimeoutMs: this.timing.handshakeTimeoutMs,
      stallTimeoutMs: this.timing.stallTimeoutMs,
      // Only the reading side hears heartbeats; a dialer never receives anything after the handshake.
      ...(role === 'acceptor' ? { idleTimeoutMs: 2 * this.options.deadThresholdMs } : {}),
    }
  }

  private receive(inbound: Inbound, frame: MeshFrame): void {
    const remote = inbound.socket.remote
    if (!remote) return
    inbound.framesIn += 1
    this.totals.framesIn += 1
    this.options.counters?.frame(frame.type, 'in')
    const heard = this.heardFrom(remote)
    heard.framesIn += 1
    // A connection to ourselves is closed by the dialer side; nothing it carries is applied.
    if (inbound.socket.loopsToSelf) return
    switch (frame.type) {
      case 'HEARTBEAT':
        return this.heardHeartbeat(heard, frame)
      case 'PEER_STATS':
        heard.stats = statsOf(frame)
        return
      case 'POP_WAKE': {
        const wakes = wakesOf(frame.wakes)
        if (wakes.length > 0) this.options.onHint({ type: 'POP_WAKE', wakes }, remote.instance)
        return
      }
      case 'MAINTENANCE_MODE_SET':
      case 'POP_MAINTENANCE_MODE_SET':
        if (typeof frame.enabled === 'boolean') {
          this.options.onHint({ type: frame.type, enabled: frame.enabled }, remote.instance)
        }
        return
      case 'CONFIG_INVALIDATE':
        if (typeof frame.tenant === 'string' && (typeof frame.queue === 'string' || frame.queue === null)) {
          this.options.onHint({ type: 'CONFIG_INVALIDATE', tenant: frame.tenant, queue: frame.queue }, remote.instance)
        }
        return
      default:
        // Forward compatibility: a newer peer's frame types are counted and ignored.
        this.totals.unknownFrames += 1
    }
  }

  private heardFrom(remote: HelloIdentity): Heard {
    let heard = this.heard.get(remote.instance)
    if (!heard) {
      heard = { serverId: remote.serverId, lastHeartbeatAt: 0, lastTs: 0, rttMs: null, framesIn: 0, stats: null }
      this.heard.set(remote.instance, heard)
    }
    return heard
  }

  private heardHeartbeat(heard: Heard, frame: MeshFrame): void {
    const now = Date.now()
    this.totals.heartbeatsIn += 1
    heard.lastHeartbeatAt = now
    if (typeof frame.ts === 'number') heard.lastTs = frame.ts
    // RTT without synchronised clocks: our own timestamp echoed back, minus the time the peer held it.
    const echo = frame.echo as { ts?: unknown; heldMs?: unknown } | undefined
    if (echo && typeof echo.ts === 'number' && typeof echo.heldMs === 'number') {
      const rtt = now - echo.ts - echo.heldMs
      if (rtt >= 0 && rtt < 60_000) heard.rttMs = Math.round(rtt * 10) / 10
    }
  }

  // --- sending -----------------------------------------------------------------------------------------

  private frameBase(type: string): MeshFrame {
    return { type, from: this.options.serverId, ts: Date.now() }
  }

  private send(link: Link, body: MeshFrame): void {
    if (link.state !== 'connected' || !link.socket) return
    try {
      if (!link.socket.send(body)) return
    } catch (error) {
      this.log.debug({ err: error, type: body.type }, 'mesh frame not sent')
      return
    }
    link.framesOut += 1
    this.totals.framesOut += 1
    this.options.counters?.frame(body.type, 'out')
  }

  private broadcast(hint: Exclude<Hint, { type: 'POP_WAKE' }>): void {
    const body = { ...this.frameBase(hint.type), ...hint }
    for (const link of this.links) this.send(link, body)
  }

  private flushWakes(): void {
    const wakes = [...this.pendingWakes.values()]
    this.pendingWakes.clear()
    if (this.peersConnected === 0) return
    for (const chunk of chunkWakes(wakes)) {
      const body = { ...this.frameBase('POP_WAKE'), wakes: chunk }
      for (const link of this.links) this.send(link, body)
    }
  }

  private heartbeat(): void {
    for (const link of this.links) this.sendHeartbeat(link)
  }

  private sendHeartbeat(link: Link): void {
    if (link.state !== 'connected') return
    const heard = link.remote ? this.heard.get(link.remote.instance) : undefined
    const body: MeshFrame = {
      ...this.frameBase('HEARTBEAT'),
      instance: this.options.instance,
      uptimeMs: Date.now() - this.startedAt,
    }
    if (heard && heard.lastHeartbeatAt > 0) body.echo = { ts: heard.lastTs, heldMs: Date.now() - heard.lastHeartbeatAt }
    this.send(link, body)
  }

  private sendStats(): void {
    const stats = this.options.stats?.()
    if (!stats) return
    const body = { ...this.frameBase('PEER_STATS'), ...stats }
    for (const link of this.links) this.send(link, body)
  }

  // --- failures ----------------------------------------------------------------------------------------

  private authFailure(remote: string, reason: CloseReason, detail: string | undefined): void {
    this.totals.authFailures += 1
    this.options.counters?.authFailure()
    // Keyed by host, not host:port: every retry comes from a new source port.
    this.warnLimited(
      `auth:${remote.replace(/:[^:\]]*$/, '')}`,
      { remote, reason, detail },
      `mesh authentication failed: ${CLOSE_TEXT[reason]}`,
    )
  }

  private warnLimited(key: string, fields: object, message: string): void {
    const now = Date.now()
    if (now - (this.lastWarnAt.get(key) ?? 0) < WARN_EVERY_MS) return
    if (this.lastWarnAt.size > 1000) this.lastWarnAt.clear()
    this.lastWarnAt.set(key, now)
    this.log.warn(fields, message)
  }
}

/** Splits wakes into frames of at most 500 entries that fit in 64 KiB. */
function chunkWakes(wakes: WakeHint[]): WakeHint[][] {
  const chunks: WakeHint[][] = []
  const budget = MAX_FRAME_BYTES - MAC_BYTES - SEQ_BYTES - 256
  let current: WakeHint[] = []
  let bytes = 0
  for (const wake of wakes) {
    const size = Buffer.byteLength(JSON.stringify(wake)) + 1
    if (current.length > 0 && (current.length >= MAX_WAKES_PER_FRAME || bytes + size > budget)) {
      chunks.push(current)
      current = []
      bytes = 0
    }
    if (size > budget) continue
    current.push(wake)
    bytes += size
  }
  if (current.length > 0) chunks.push(current)
  return chunks
}

function wakesOf(value: unknown): WakeHint[] {
  if (!Array.isArray(value)) return []
  const wakes: WakeHint[] = []
  for (const item of value.slice(0, MAX_WAKES_PER_FRAME) as unknown[]) {
    if (item === null || typeof item !== 'object') continue
    const { tenant, queue, partition, mark } = item as Record<string, unknown>
    if (typeof tenant !== 'string' || typeof queue !== 'string') continue
    if (partition !== null && typeof partition !== 'string') continue
    wakes.push({ tenant, queue, partition, ...(typeof mark === 'number' ? { mark } : {}) })
  }
  return wakes
}

function statsOf(frame: MeshFrame): PeerStats {
  const number = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0)
  const rates = (frame.rates ?? {}) as Record<string, unknown>
  return {
    version: typeof frame.version === 'string' ? frame.version.slice(0, 64) : '',
    parkedPops: number(frame.parkedPops),
    spoolRecords: number(frame.spoolRecords),
    spoolBytes: number(frame.spoolBytes),
    poolTotal: number(frame.poolTotal),
    poolIdle: number(frame.poolIdle),
    poolWaiting: number(frame.poolWaiting),
    rates: { push: number(rates.push), pop: number(rates.pop), ack: number(rates.ack) },
  }
}
