/**
 * The bearer token of this tab (sessionStorage: gone when the tab closes), whether the broker asked for one
 * (a 401), and the role the token claims. The role is read from the token's payload for display only (which
 * actions to offer); the broker verifies the token and enforces the role on every request.
 */
import { useSyncExternalStore } from 'react'

const KEY = 'queen.token'

/** What the token form needs to know. */
export interface AuthState {
  /** The token sent as `Authorization: Bearer`, if any. */
  token: string | undefined
  /** A request answered 401: the broker wants a (new) token. */
  required: boolean
  /** The broker's reason for the last 401 ("Invalid token signature", ...). */
  error: string | undefined
  /** Bumped on every token change, so views fetch again at once. */
  version: number
}

let state: AuthState = {
  token: window.sessionStorage.getItem(KEY) ?? undefined,
  required: false,
  error: undefined,
  version: 0,
}
const listeners = new Set<() => void>()

function update(next: Partial<AuthState>): void {
  state = { ...state, ...next }
  for (const listener of listeners) listener()
}

/** The current state (outside React). */
export function authState(): AuthState {
  return state
}

/** Keeps `token` for this tab and retries with it. */
export function signIn(token: string): void {
  window.sessionStorage.setItem(KEY, token)
  update({ token, required: false, error: undefined, version: state.version + 1 })
}

/** Forgets the token. */
export function signOut(): void {
  window.sessionStorage.removeItem(KEY)
  update({ token: undefined, required: false, error: undefined, version: state.version + 1 })
}

/** A request answered 401 with `message`: show the token form. */
export function authenticationRequired(message: string): void {
  if (state.required && state.error === message) return
  update({ required: true, error: message })
}

/** Calls `listener` on every change of the auth state; returns the unsubscribe. */
export function subscribeAuth(listener: () => void): () => void {
  listeners.add(listener)
  return () => listeners.delete(listener)
}

/** The auth state, re-rendering on change. */
export function useAuth(): AuthState {
  return useSyncExternalStore(subscribeAuth, authState)
}

/**
 * The roles a JWT claims in its `role` (string) or `roles` (array) claim — the broker's default claim names
 * (docs/configuration.md, `JWT_ROLES_CLAIM`). Empty for no token or one that cannot be read.
 */
export function claimedRoles(token: string | undefined): string[] {
  const payload = token?.split('.')[1]
  if (payload === undefined) return []
  try {
    const json = atob(payload.replace(/-/g, '+').replace(/_/g, '/'))
    const claims = JSON.parse(json) as { role?: unknown; roles?: unknown }
    const roles = Array.isArray(claims.roles) ? claims.roles.filter((r): r is string => typeof r === 'string') : []
    return typeof claims.role === 'string' ? [claims.role, ...roles] : roles
  } catch {
    return []
  }
}

/**
 * Whether to offer admin actions (maintenance toggles): with no token (JWT off, or not signed in yet) yes — the
 * broker answers 401 or 403 if it disagrees; with a token, only when it claims a role other than the read-only
 * and read-write defaults.
 */
export function mayAdminister(token: string | undefined): boolean {
  if (token === undefined) return true
  const roles = claimedRoles(token)
  return roles.some((role) => role !== 'read-only' && role !== 'read-write')
}

/**
 * Whether to offer write actions (seek, configure, retry, move to the DLQ, delete a message, requeue, purge: the
 * `write` class of docs/http-api.md, "Auth classes"): with no token yes, with one when it claims any role but
 * read-only. Display only, like mayAdminister.
 */
export function mayWrite(token: string | undefined): boolean {
  if (token === undefined) return true
  return claimedRoles(token).some((role) => role !== 'read-only')
}
