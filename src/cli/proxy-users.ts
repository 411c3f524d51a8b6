/**
 * What `queenctl proxy user` does (docs/gateway.md, "People: users, sessions and sign-in"): the columns of its
 * listing. The store calls run through gatewayAdmin (proxy-admin.ts) like the tenant and key commands.
 */
import type { UserListing } from '../gateway/people/users.js'
import type { Column } from './output.js'

export const USER_COLUMNS: Column<UserListing>[] = [
  { header: 'NAME', value: (row) => row.name },
  { header: 'TENANT', value: (row) => row.tenant },
  { header: 'ROLE', value: (row) => row.role },
  { header: 'SIGN-IN', value: (row) => signInMethods(row) },
  { header: 'SESSIONS', value: (row) => row.activeSessions },
  { header: 'ID', value: (row) => row.id, wide: true },
  { header: 'OIDC SUBJECT', value: (row) => row.oidcSubject ?? '-', wide: true },
  { header: 'CREATED', value: (row) => row.createdAt, wide: true },
]

/** How a user can sign in, as one word or two. */
export function signInMethods(row: UserListing): string {
  const methods = [row.hasPassword ? 'password' : '', row.oidcSubject !== null ? 'oidc' : ''].filter(Boolean)
  return methods.join(',') || '-'
}
