/**
 * `queenctl lease extend` (docs/cli.md, "Data-plane commands", docs/http-api.md, "Lease extend"). Never retried, like
 * every write but a push.
 */
import { EXIT, UserError } from './errors.js'
import type { HttpClient } from './http-client.js'
import type { LeaseExtendAnswer, LeaseExtendResult } from '../wire/index.js'

/** The answer of a lease extension (the one item of the broker's array, src/wire/transaction.ts). */
export type LeaseExtension = LeaseExtendResult

/** `POST /api/v1/lease/:leaseId/extend`; an unknown or expired lease is a UserError (exit 2). */
export async function extendLease(client: HttpClient, leaseId: string, seconds: number): Promise<LeaseExtension> {
  const answer = await client.post<LeaseExtendAnswer>(
    `/api/v1/lease/${encodeURIComponent(leaseId)}/extend`,
    { seconds },
    { retry: false },
  )
  const item = Array.isArray(answer) ? answer[0] : undefined
  if (item?.success !== true) {
    throw new UserError(`lease ${leaseId} was not renewed: ${item?.error ?? 'no answer'}`, {
      exitCode: EXIT.server,
      code: 'lease_not_renewed',
      hint: 'a lease lives until its messages are acked or it expires; pop again for a new one',
    })
  }
  return item
}
