/**
 * What the dashboard knows of each route and of the broker connection, as pure reducers: the last good
 * answer with its time (so a stale pane can show its age), the last failure, and the status-bar state of
 * the connection (unreachable, token refused, broker errors), which any successful answer clears.
 */
import { HttpRequestError } from '../http-client.js'

/** Why a request failed, as the dashboard tells it apart. */
export type FailureKind = 'unreachable' | 'unauthorized' | 'forbidden' | 'server' | 'request'

/** A failed request. */
export interface RouteFailure {
  kind: FailureKind
  message: string
  /** HTTP status when the broker answered. */
  status?: number
  /** Epoch ms. */
  at: number
}

/** One route's state. */
export interface RouteState<T> {
  /** The last good answer; kept while later requests fail, so panes show stale data with its age. */
  data?: T
  /** Epoch ms of the last good answer. */
  okAt?: number
  /** The failure of the last request, cleared by the next good answer. */
  failure?: RouteFailure
}

/** The connection as the status bar shows it. */
export interface ConnectionState {
  state: 'connecting' | 'ok' | 'unreachable' | 'unauthorized' | 'server-error'
  /** What went wrong, for the states other than ok. */
  message?: string
  /** Epoch ms of the last good answer of any route. */
  lastOkAt?: number
  /** Epoch ms since which the state holds. */
  since: number
}

/** Classifies a thrown error of the HTTP client. */
export function failureOf(error: unknown, at: number): RouteFailure {
  if (error instanceof HttpRequestError) {
    const status = error.status
    if (status === undefined) return { kind: 'unreachable', message: error.message, at }
    if (status === 401) return { kind: 'unauthorized', message: error.message, status, at }
    if (status === 403) return { kind: 'forbidden', message: error.message, status, at }
    if (status >= 500) return { kind: 'server', message: error.message, status, at }
    return { kind: 'request', message: error.message, status, at }
  }
  return { kind: 'unreachable', message: coerceMessage(error), at }
}

/** A route after a good answer. */
export function routeSucceeded<T>(_state: RouteState<T> | undefined, data: T, at: number): RouteState<T> {
  return { data, okAt: at }
}

/** A route after a failed request: the old answer stays. */
export function routeFailed<T>(state: RouteState<T> | undefined, failure: RouteFailure): RouteState<T> {
  return { ...state, failure }
}

/** The connection after a good answer of any route. */
export function connectionSucceeded(state: ConnectionState, at: number): ConnectionState {
  return state.state === 'ok' ? { ...state, lastOkAt: at } : { state: 'ok', lastOkAt: at, since: at }
}

/**
 * The connection after a failed request. A 403 or a refused request concerns one pane only (the Mesh and
 * System panes need the admin role) and leaves the connection as it was.
 */
export function connectionFailed(state: ConnectionState, failure: RouteFailure): ConnectionState {
  const next: ConnectionState['state'] | undefined =
    failure.kind === 'unreachable'
      ? 'unreachable'
      : failure.kind === 'unauthorized'
        ? 'unauthorized'
        : failure.kind === 'server'
          ? 'server-error'
          : undefined
  if (next === undefined) return state
  return {
    state: next,
    message: failure.message,
    lastOkAt: state.lastOkAt,
    since: state.state === next ? state.since : failure.at,
  }
}

/** The age of a route's data in ms, or undefined when it never answered. */
export function dataAgeMs(state: RouteState<unknown> | undefined, now: number): number | undefined {
  return state?.okAt === undefined ? undefined : Math.max(0, now - state.okAt)
}

/** The text of anything thrown, for one-line notices. */
export function coerceMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
