/**
 * `queenctl spool status` (docs/cli.md, "Command reference"): the answering broker's spool from
 * `GET /api/v1/status/buffers` (docs/http-api.md, "Status and analytics").
 */
import { formatBytes } from './format.js'
import type { HttpClient } from './http-client.js'
import type { BuffersAnswer } from '../wire/index.js'

/** The broker's answer, passed through as the command's result (src/wire/system.ts). */
export type SpoolStatus = BuffersAnswer

/** Reads the spool status of the broker. */
export function fetchSpoolStatus(client: HttpClient): Promise<SpoolStatus> {
  return client.get<SpoolStatus>('/api/v1/status/buffers')
}

/** The key/value view in table mode. */
export function spoolStatusDisplay(status: SpoolStatus): Record<string, string | number> {
  return {
    server: status.worker,
    state: status.state,
    pending: status.pending,
    bytes: formatBytes(status.bytes),
    segments: status.segments,
    quarantined: status.failed,
    database: status.dbHealthy ? 'reachable' : 'unreachable',
  }
}
