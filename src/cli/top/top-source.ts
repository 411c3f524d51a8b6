/**
 * Where the dashboard's data comes from: the CLI's HTTP client, without its retries (the poller retries
 * on its next tick, and a retry loop inside a tick would hold the route's one request slot for seconds),
 * and the two maintenance writes behind `m` and `M`.
 */
import type { HttpClient } from '../http-client.js'
import type { RouteRequest } from './routes.js'
import type { MaintenanceKind } from './view-state.js'
import type { MaintenanceSetAnswer, PopMaintenanceAnswer } from './wire.js'

/** The dashboard's access to a broker. */
export interface TopSource {
  /** The broker's base URL, for the header. */
  server: string
  fetch(request: RouteRequest): Promise<unknown>
  /** Sets a maintenance flag and resolves with the broker's message. */
  setMaintenance(kind: MaintenanceKind, enabled: boolean): Promise<string>
}

const MAINTENANCE_PATHS: Record<MaintenanceKind, string> = {
  push: '/api/v1/system/maintenance',
  pop: '/api/v1/system/maintenance/pop',
}

/** A source on an HttpClient. */
export function httpSource(client: HttpClient): TopSource {
  return {
    server: client.server,
    fetch: (request) => client.get(request.path, { query: request.query, tenant: request.tenant, retry: false }),
    async setMaintenance(kind, enabled) {
      const answer = await client.post<MaintenanceSetAnswer | PopMaintenanceAnswer>(
        MAINTENANCE_PATHS[kind],
        { enabled },
        { tenant: false },
      )
      return typeof answer.message === 'string' ? answer.message : `${kind}-maintenance ${enabled ? 'on' : 'off'}`
    },
  }
}
