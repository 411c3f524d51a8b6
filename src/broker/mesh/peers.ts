/**
 * The peer list and the mesh's boot rules (docs/operations.md, "Peers" and "Open mode"): `host[:port]` entries with
 * `http://`, `https://` and a trailing `/` stripped, duplicates dropped, an unparsable entry refused; open
 * mode (no secret) only when the bind address and every peer are loopback, unless allowed.
 */
import { isIP } from 'node:net'
import type { BrokerConfig } from '../config/broker-config.js'
import { meshWanted } from './mesh-wanted.js'

/** One configured peer. */
export interface PeerAddress {
  host: string
  port: number
  /** `host:port` as shown in `mesh status`. */
  address: string
}

const HOST_NAME = /^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$/

/** Parses one entry; returns a message naming the entry when it cannot be used. */
export function parsePeer(entry: string, defaultPort: number): PeerAddress | string {
  const text = entry
    .trim()
    .replace(/^https?:\/\//i, '')
    .replace(/\/$/, '')
  let host = text
  let portText: string | undefined
  const bracketed = /^\[([^\]]+)\](?::(.*))?$/.exec(text)
  if (bracketed) {
    host = bracketed[1] ?? ''
    portText = bracketed[2]
  } else if ((text.match(/:/g) ?? []).length === 1) {
    const at = text.lastIndexOf(':')
    host = text.slice(0, at)
    portText = text.slice(at + 1)
  }
  if (host === '' || (!HOST_NAME.test(host) && isIP(host) === 0)) return `"${entry}" is not host[:port]`
  let port = defaultPort
  if (portText !== undefined) {
    port = /^\d{1,5}$/.test(portText) ? Number(portText) : NaN
    if (!(port >= 1 && port <= 65535)) return `"${entry}" has no valid port (1-65535)`
  }
  const address = isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`
  return { host, port, address }
}

/** The peers of `QUEEN_MESH_PEERS`, deduplicated, or the problems of the entries that do not parse. */
export function parsePeers(
  entries: readonly string[],
  defaultPort: number,
): { peers: PeerAddress[]; problems: string[] } {
  const peers = new Map<string, PeerAddress>()
  const problems: string[] = []
  for (const entry of entries) {
    const peer = parsePeer(entry, defaultPort)
    if (typeof peer === 'string') problems.push(`config error: QUEEN_MESH_PEERS: ${peer}`)
    else if (!peers.has(peer.address.toLowerCase())) peers.set(peer.address.toLowerCase(), peer)
  }
  return { peers: [...peers.values()], problems }
}

/** Loopback by its spelling: 127.0.0.0/8, ::1 and `localhost` (other names could resolve anywhere). */
export function isLoopbackHost(host: string): boolean {
  const name = host.toLowerCase()
  if (name === 'localhost' || name.endsWith('.localhost')) return true
  if (isIP(name) === 4) return name.startsWith('127.')
  return name === '::1' || name === '0:0:0:0:0:0:0:1' || name === '::ffff:127.0.0.1'
}

/** The settings that stop the boot: unparsable peers, open mode off loopback. Empty when the mesh can run. */
export function meshBootProblems(config: Pick<BrokerConfig, 'mesh' | 'host'>): string[] {
  if (!meshWanted(config)) return []
  const { peers, problems } = parsePeers(config.mesh.peers, config.mesh.port)
  if (config.mesh.secret === undefined && !config.mesh.allowOpen) {
    const outside = [config.host, ...peers.map((peer) => peer.host)].filter((host) => !isLoopbackHost(host))
    if (outside.length > 0) {
      problems.push(
        `config error: QUEEN_SYNC_SECRET is empty (open mode) but the mesh reaches non-loopback addresses ` +
          `(${[...new Set(outside)].join(', ')}; HOST=${config.host}): anyone who can reach port ` +
          `${config.mesh.port} could join. Set QUEEN_SYNC_SECRET (openssl rand -hex 32) on every replica, or ` +
          'QUEEN_MESH_ALLOW_OPEN=true to accept open mode',
      )
    }
  }
  return problems
}
