/**
 * Which write actions to offer (retry, move to the DLQ, delete, requeue, purge: the `write` class of
 * docs/http-api.md, "Auth classes"). Display only, like auth.ts's mayAdminister: the broker checks every request.
 */
import { claimedRoles } from './auth'

/**
 * With no token (JWT off, or not signed in yet) yes; with a token, when it claims any role but read-only.
 */
export function mayWrite(token: string | undefined): boolean {
  if (token === undefined) return true
  return claimedRoles(token).some((role) => role !== 'read-only')
}
