/**
 * `login --method password` and the logout of a session (docs/gateway.md, "People: users, sessions and sign-in"):
 * the gateway's `POST /api/login` answers a session token (`qs_...`), which the CLI then stores and sends as a bearer
 * token like any other; `logout` ends it with `POST /api/logout` (best effort).
 */
import { EXIT, UserError } from './errors.js'

const TIMEOUT_MS = 15_000

/** Signs in at the gateway `server`; returns the session token and who it is for. */
export async function gatewayPasswordLogin(
  server: string,
  username: string,
  password: string,
): Promise<{ token: string; user: { name: string; tenant: string; role: string }; expiresAt: string }> {
  let response: Response
  try {
    response = await fetch(`${server}/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ username, password }),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    })
  } catch (error) {
    throw new UserError(`login --method password: cannot reach ${server} (${(error as Error).message})`, {
      exitCode: EXIT.server,
      hint: 'pass the gateway with --server URL (queenctl proxy serve listens on 6634)',
    })
  }
  const text = await response.text()
  let body: Record<string, unknown> = {}
  try {
    body = JSON.parse(text) as Record<string, unknown>
  } catch {
    // not JSON: reported below by status
  }
  if (response.ok && typeof body.token === 'string') {
    return body as unknown as Awaited<ReturnType<typeof gatewayPasswordLogin>>
  }
  if (response.status === 404 || (response.ok && typeof body.token !== 'string')) {
    throw new UserError(`login --method password: ${server} has no /api/login; is it a queen gateway?`, {
      hint: 'point --server (or the context) at queenctl proxy serve, or use --method token',
    })
  }
  const reason = typeof body.error === 'string' ? body.error : `${response.status} ${response.statusText}`
  if (response.status === 401 || response.status === 403) {
    throw new UserError(`login --method password: ${reason}`, { exitCode: EXIT.auth })
  }
  throw new UserError(`login --method password: ${reason}`, {
    exitCode: response.status >= 500 ? EXIT.server : EXIT.user,
  })
}

/** Ends a session at the gateway; any failure is ignored (the token is forgotten locally anyway). */
export async function gatewayLogout(server: string, token: string): Promise<boolean> {
  try {
    const response = await fetch(`${server}/api/logout`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(5000),
    })
    await response.text()
    return response.ok
  } catch {
    return false
  }
}
