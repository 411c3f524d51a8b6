/**
 * The broker's API as the dashboard calls it: same origin, JSON, the tab's bearer token when there is one.
 * A 401 brings the token form back (auth.ts); a 403 names the role the route needs (docs/http-api.md, "Auth
 * classes"), since the broker's answer only says "Insufficient permissions".
 */
import type { HealthAnswer } from '../../src/wire/index.js'
import { authenticationRequired, authState, claimedRoles } from './auth'

/** Who may call a route (docs/http-api.md, "Auth classes"), as the dashboard names the role it needs. */
export type RouteClass = 'read' | 'write' | 'admin'

const ROLE_OF_CLASS: Record<RouteClass, string> = { read: 'read-only', write: 'read-write', admin: 'admin' }

/** A request that did not answer 2xx, with a message for the page. */
export class ApiError extends Error {
  /** The HTTP status; 0 when the broker could not be reached. */
  readonly status: number

  constructor(message: string, status: number) {
    super(message)
    this.name = 'ApiError'
    this.status = status
  }
}

async function call<T>(
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  needs: RouteClass,
  body?: unknown,
  signal?: AbortSignal,
) {
  const { token } = authState()
  const headers: Record<string, string> = { accept: 'application/json' }
  if (token !== undefined) headers.authorization = `Bearer ${token}`
  if (body !== undefined) headers['content-type'] = 'application/json'
  let response: Response
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
      cache: 'no-store',
    })
  } catch (error) {
    if (signal?.aborted) throw error
    throw new ApiError(`the broker cannot be reached (${(error as Error).message})`, 0)
  }
  const text = await response.text()
  const parsed: unknown = text.length > 0 ? safeJson(text) : undefined
  if (response.ok) return parsed as T
  const brokerMessage =
    typeof parsed === 'object' && parsed !== null && 'error' in parsed && typeof parsed.error === 'string'
      ? parsed.error
      : `${response.status} ${response.statusText}`
  if (response.status === 401) {
    authenticationRequired(brokerMessage)
    throw new ApiError(`${brokerMessage}: sign in with a token`, 401)
  }
  if (response.status === 403) {
    const roles = claimedRoles(token)
    const yours = roles.length > 0 ? `your token's role: ${roles.join(', ')}` : 'your token claims no role'
    throw new ApiError(`${brokerMessage}: this needs the ${ROLE_OF_CLASS[needs]} role (${yours})`, 403)
  }
  throw new ApiError(brokerMessage, response.status)
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/** GET a JSON answer from the broker. */
export function apiGet<T>(path: string, needs: RouteClass, signal?: AbortSignal): Promise<T> {
  return call<T>('GET', path, needs, undefined, signal)
}

/** POST a JSON body to the broker. */
export function apiPost<T>(path: string, needs: RouteClass, body: unknown): Promise<T> {
  return call<T>('POST', path, needs, body)
}

/** DELETE a resource of the broker. */
export function apiDelete<T>(path: string, needs: RouteClass): Promise<T> {
  return call<T>('DELETE', path, needs)
}

/** GET /health: its answer for 200 and 503 alike (both carry the same keys). Public: no token. */
export async function fetchHealth(signal: AbortSignal): Promise<HealthAnswer> {
  let response: Response
  try {
    response = await fetch('/health', { signal, cache: 'no-store', headers: { accept: 'application/json' } })
  } catch (error) {
    if (signal.aborted) throw error
    throw new ApiError(`the broker cannot be reached (${(error as Error).message})`, 0)
  }
  if (response.status !== 200 && response.status !== 503) {
    throw new ApiError(`/health answered ${response.status}`, response.status)
  }
  return (await response.json()) as HealthAnswer
}
