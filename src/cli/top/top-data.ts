/**
 * The dashboard's data: every route's state, the connection, and the rate history, with the two reducers
 * the poller feeds (an answer, a failure). Pure: each returns a new object, so a React view re-renders on
 * identity.
 */
import { EMPTY_HISTORY, foldQueueOps, queueRates, totalRates, type OpRates, type OpsHistory } from './ops-history.js'
import {
  connectionFailed,
  connectionSucceeded,
  failureOf,
  routeFailed,
  routeSucceeded,
  type ConnectionState,
  type RouteState,
} from './route-state.js'
import type { RouteAnswers, RouteKey } from './routes.js'

/** Every route's state. */
export type RouteStates = { [K in RouteKey]?: RouteState<RouteAnswers[K]> }

/** What the panes render. */
export interface TopData {
  routes: RouteStates
  connection: ConnectionState
  /** Counter history behind the rates and sparklines. */
  ops: OpsHistory
  /** Per-queue rates per second (empty before the second queue-ops answer). */
  rates: ReadonlyMap<string, OpRates>
  /** Rates over every queue; undefined before the second queue-ops answer. */
  total: OpRates | undefined
}

/** The data before the first answer. */
export function initialData(now: number): TopData {
  return {
    routes: {},
    connection: { state: 'connecting', since: now },
    ops: EMPTY_HISTORY,
    rates: new Map(),
    total: undefined,
  }
}

/** The data after a good answer of `key` at `at`. */
export function answerArrived<K extends RouteKey>(data: TopData, key: K, answer: RouteAnswers[K], at: number): TopData {
  const routes: RouteStates = { ...data.routes, [key]: routeSucceeded(data.routes[key], answer, at) }
  const next: TopData = { ...data, routes, connection: connectionSucceeded(data.connection, at) }
  if (key === 'queueOps') {
    const ops = foldQueueOps(data.ops, answer as RouteAnswers['queueOps'], at)
    const rates = queueRates(ops)
    return { ...next, ops, rates, total: totalRates(rates, ops) }
  }
  return next
}

/** The data after a failed request of `key` at `at`. */
export function requestFailed(data: TopData, key: RouteKey, error: unknown, at: number): TopData {
  const failure = failureOf(error, at)
  return {
    ...data,
    routes: { ...data.routes, [key]: routeFailed<unknown>(data.routes[key], failure) },
    connection: connectionFailed(data.connection, failure),
  }
}

/**
 * The data after the broker confirmed a maintenance write at `at`: the flag is shown as written at once, so
 * the status bar and the next `m`/`M` question do not act on an answer asked before the write.
 */
export function maintenanceWritten(data: TopData, kind: 'push' | 'pop', enabled: boolean, at: number): TopData {
  const current = data.routes.maintenance?.data
  if (!current) return data
  const flag = kind === 'push' ? 'maintenanceMode' : 'popMaintenanceMode'
  const answer = { ...current, [flag]: enabled }
  return { ...data, routes: { ...data.routes, maintenance: routeSucceeded(data.routes.maintenance, answer, at) } }
}
