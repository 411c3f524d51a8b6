/**
 * `mesh status` (docs/cli.md, "queenctl mesh status"): the broker's view of the replica mesh from GET
 * /api/v1/system/mesh (docs/http-api.md, "System"), as a summary line, a peer table and the hints of the spec.
 */
import type { ChalkInstance } from 'chalk'
import { formatAge, formatBytes, formatCount, formatDuration } from './format.js'
import type { Column } from './output.js'
import type { MeshAnswer, MeshPeer } from '../wire/index.js'

/** The answer these commands read (src/wire/system.ts). */
export type { MeshAnswer, MeshPeer }

/** What a broker without peers answers in table mode. */
export const NO_MESH = 'no mesh configured: this broker runs alone (QUEEN_MESH_PEERS unset)'

/** True when the answer describes no mesh at all. */
export function meshAbsent(answer: MeshAnswer): boolean {
  return answer.peersConfigured === 0 && answer.peers.length === 0
}

function since(value: string | null, now: number): number | null {
  if (value === null) return null
  const time = Date.parse(value)
  return Number.isFinite(time) ? now - time : null
}

/** The summary line: `self queen-0  port 6633  auth hmac  peers 2/3 connected`; `auth off` red. */
export function meshSummary(answer: MeshAnswer, chalk: ChalkInstance): string {
  const auth = answer.auth === 'off' ? chalk.red('auth off (open mode)') : `auth ${answer.auth}`
  return `self ${answer.serverId}  port ${answer.port}  ${auth}  peers ${answer.peersConnected}/${answer.peersConfigured} connected`
}

/** The peer table; `now` makes SINCE and LAST HEARTBEAT testable. */
export function meshColumns(now: number = Date.now()): Column<MeshPeer>[] {
  const live = (peer: MeshPeer) => peer.state !== 'self'
  return [
    { header: 'PEER', value: (peer) => peer.address },
    { header: 'SERVER ID', value: (peer) => peer.serverId },
    { header: 'STATE', value: (peer) => peer.state },
    { header: 'SINCE', value: (peer) => (live(peer) ? formatDuration(since(peer.since, now)) : null) },
    {
      header: 'LAST HEARTBEAT',
      value: (peer) => (live(peer) && peer.lastHeartbeatAt !== null ? formatAge(peer.lastHeartbeatAt, now) : null),
    },
    { header: 'RTT', value: (peer) => (peer.rttMs === null || !live(peer) ? null : `${peer.rttMs}ms`) },
    { header: 'FRAMES IN', value: (peer) => peer.framesIn, wide: true },
    { header: 'FRAMES OUT', value: (peer) => peer.framesOut, wide: true },
    { header: 'AUTH FAILURES', value: (peer) => peer.authFailures, wide: true },
    { header: 'LAST ERROR', value: (peer) => peer.lastError, wide: true },
    { header: 'PARKED POPS', value: (peer) => peer.stats?.parkedPops, wide: true },
    {
      header: 'SPOOL',
      value: (peer) =>
        peer.stats?.spoolRecords === undefined
          ? null
          : `${formatCount(peer.stats.spoolRecords)} (${formatBytes(peer.stats.spoolBytes)})`,
      wide: true,
    },
  ]
}

/** The hints of docs/cli.md, "queenctl mesh status" that apply to the answer. */
export function meshHints(answer: MeshAnswer): string[] {
  const hints: string[] = []
  const others = answer.peers.filter((peer) => peer.state !== 'self')
  if (others.length > 0 && others.every((peer) => peer.state !== 'connected')) {
    hints.push(
      `no peer is connected: check that port ${answer.port} is TCP in the Services and NetworkPolicies and reachable from every replica`,
    )
  }
  if (answer.peers.some((peer) => (peer.authFailures ?? 0) > 0)) {
    hints.push('authentication failures: QUEEN_SYNC_SECRET differs between replicas')
  }
  for (const peer of answer.peers) if (peer.hint) hints.push(`${peer.address}: ${peer.hint}`)
  return hints
}
