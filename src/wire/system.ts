/** Operator routes (docs/http-api.md, "System"). */
import type { Timestamp } from './common.js'

/** GET /api/v1/system/maintenance. */
export interface MaintenanceAnswer {
  maintenanceMode: boolean
  popMaintenanceMode: boolean
  bufferedMessages: number
  bufferHealthy: boolean
  bufferStats: {
    pendingCount: number
    failedCount: number
    dbHealthy: boolean
    failedFiles: { count: number; totalBytes: number; totalMB: number; failoverCount: number; qos0Count: number }
  }
}

/** POST /api/v1/system/maintenance. */
export interface MaintenanceSetAnswer {
  maintenanceMode: boolean
  bufferedMessages: number
  bufferHealthy: boolean
  message: string
}

/** GET and POST /api/v1/system/maintenance/pop. */
export interface PopMaintenanceAnswer {
  popMaintenanceMode: boolean
  message: string
}

/** The spool's state (docs/operations.md, "The disk spool"). */
export type SpoolState = 'ok' | 'replaying' | 'full' | 'unwritable' | 'fallback'

/** GET /api/v1/status/buffers: this replica's spool. */
export interface BuffersAnswer {
  /** Records awaiting replay. */
  pending: number
  /** Records in the quarantine. */
  failed: number
  dbHealthy: boolean
  /** The answering broker's server id. */
  worker: string
  /** Bytes awaiting replay. */
  bytes: number
  /** Segments on disk, the active one included. */
  segments: number
  state: SpoolState
}

/** A mesh link's state (docs/operations.md, "The mesh"). */
export type PeerState = 'connected' | 'connecting' | 'backoff' | 'self' | 'refused'

/** One configured peer of GET /api/v1/system/mesh. */
export interface MeshPeer {
  address: string
  serverId: string | null
  state: PeerState
  since: Timestamp | null
  lastHeartbeatAt: Timestamp | null
  rttMs: number | null
  framesIn: number
  framesOut: number
  authFailures: number
  lastError: string | null
  restarts: number
  everConnected: boolean
  alive: boolean
  hint: string | null
  /** The peer's last PEER_STATS (docs/operations.md, "Frame types"); null until one arrives. */
  stats: MeshPeerStats | null
}

/** What a peer reports of itself every heartbeat. */
export interface MeshPeerStats {
  version: string
  /** Long-polls parked on the peer. */
  parkedPops: number
  spoolRecords: number
  spoolBytes: number
  poolTotal: number
  poolIdle: number
  poolWaiting: number
  /** Requests per second over the peer's last stats interval. */
  rates: { push: number; pop: number; ack: number }
}

/** One authenticated inbound mesh connection. */
export interface MeshInbound {
  remoteAddress: string
  serverId: string | null
  since: Timestamp | null
  framesIn: number
}

/** GET /api/v1/system/mesh: this broker's view of every configured peer. */
export interface MeshAnswer {
  serverId: string
  port: number
  auth: string
  listening: boolean
  peersConfigured: number
  peersConnected: number
  peers: MeshPeer[]
  inbound: MeshInbound[]
}

/** GET /health: readiness (200 healthy, 503 otherwise, with the same keys). Public. */
export interface HealthAnswer {
  status: 'healthy' | 'unhealthy' | 'starting' | 'draining'
  /** Absent only while draining. */
  database?: 'connected' | 'disconnected' | 'read-only'
  server: string
  version: string
  server_id: string
  worker_id: number
  uptime_s: number
  /** This replica's maintenance flags: push-maintenance spools pushes, pop-maintenance pauses pops. */
  maintenance: { push: boolean; pop: boolean }
  spool: { state: SpoolState; records: number; bytes: number }
  mesh: { auth: string; peersConfigured: number; peersConnected: number }
  shared_state: { enabled: boolean; server_id: string }
  queen: { worker_id: number; status: string }
}
