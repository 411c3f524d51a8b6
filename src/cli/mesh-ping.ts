/**
 * `mesh ping host:port`: runs the mesh's HELLO handshake (docs/operations.md, "Handshake") against a broker's mesh port
 * with this environment's QUEEN_SYNC_SECRET, then closes. It tells apart a port that does not answer, a
 * listener that is not a mesh, and a mesh whose secret differs, without sending a single hint.
 */
import { randomUUID } from 'node:crypto'
import { connect } from 'node:net'
import { MeshSocket, CLOSE_TEXT, type CloseReason } from '../broker/mesh/mesh-socket.js'
import type { PeerAddress } from '../broker/mesh/peers.js'

/** What the handshake found. */
export type PingOutcome = 'ok' | 'secret-mismatch' | 'unreachable' | 'not-a-mesh' | 'self'

/** The result of one ping. */
export interface MeshPingResult {
  target: string
  reachable: boolean
  secretMatches: boolean | null
  outcome: PingOutcome
  auth: 'hmac' | 'off'
  serverId: string | null
  latencyMs: number | null
  error: string | null
}

/** Dials `peer`, runs the handshake with `secret` ('' = open mode) and reports. */
export function meshPing(peer: PeerAddress, secret: string, timeoutMs: number): Promise<MeshPingResult> {
  const started = performance.now()
  const base = { target: peer.address, auth: secret === '' ? ('off' as const) : ('hmac' as const) }
  return new Promise((resolve) => {
    let settled = false
    const finish = (result: Omit<MeshPingResult, 'target' | 'auth'>) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      socket.destroy()
      resolve({ ...base, ...result })
    }
    const socket = connect({ host: peer.host, port: peer.port })
    const timer = setTimeout(
      () =>
        finish({
          reachable: false,
          secretMatches: null,
          outcome: 'unreachable',
          serverId: null,
          latencyMs: null,
          error: `no answer within ${timeoutMs} ms`,
        }),
      timeoutMs,
    )
    socket.once('error', (error) =>
      finish({
        reachable: false,
        secretMatches: null,
        outcome: 'unreachable',
        serverId: null,
        latencyMs: null,
        error: error.message,
      }),
    )
    socket.once('connect', () => {
      const mesh = new MeshSocket(
        socket,
        {
          role: 'dialer',
          secret,
          self: { serverId: 'queenctl-mesh-ping', instance: randomUUID() },
          handshakeTimeoutMs: timeoutMs,
          stallTimeoutMs: timeoutMs,
        },
        {
          established: (remote) =>
            finish({
              reachable: true,
              secretMatches: true,
              outcome: 'ok',
              serverId: remote.serverId,
              latencyMs: Math.round((performance.now() - started) * 10) / 10,
              error: null,
            }),
          closed: (reason, detail) => finish(closedResult(reason, detail, mesh.remote?.serverId ?? null)),
        },
      )
    })
  })
}

function closedResult(reason: CloseReason, detail: string | undefined, serverId: string | null) {
  const error = detail === undefined ? CLOSE_TEXT[reason] : `${CLOSE_TEXT[reason]}: ${detail}`
  if (reason === 'bad-proof') {
    return {
      reachable: true,
      secretMatches: false,
      outcome: 'secret-mismatch' as const,
      serverId,
      latencyMs: null,
      error,
    }
  }
  return { reachable: true, secretMatches: null, outcome: 'not-a-mesh' as const, serverId, latencyMs: null, error }
}
