/**
 * Which actions to offer the token of this tab, beside the admin check of auth.ts (`mayAdminister`): a
 * write action (seek, configure) needs a role above read-only (docs/http-api.md, "Auth classes"). Display
 * only, like auth.ts: the broker enforces the role on every request.
 */
import { claimedRoles } from './auth'

/** Whether to offer write actions: yes with no token (the broker answers 401/403 if it disagrees). */
export function mayWrite(token: string | undefined): boolean {
  if (token === undefined) return true
  return claimedRoles(token).some((role) => role !== 'read-only')
}
