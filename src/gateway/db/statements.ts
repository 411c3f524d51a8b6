/** The gateway's statements (docs/conventions.md, "SQL lives in .sql files"): one file per statement in queries/. */
import { loadSqlRegistry } from '../../platform/postgres/sql-registry.js'

const FILES = {
  tenantCreate: 'tenant-create.sql',
  tenantList: 'tenant-list.sql',
  tenantFind: 'tenant-find.sql',
  tenantSetStatus: 'tenant-set-status.sql',
  tenantDelete: 'tenant-delete.sql',
  keyCreate: 'key-create.sql',
  keyList: 'key-list.sql',
  keyRevoke: 'key-revoke.sql',
  keyByPrefix: 'key-by-prefix.sql',
  keyById: 'key-by-id.sql',
  keyTouch: 'key-touch.sql',
  healthPing: 'health-ping.sql',
  // Metering
  usageAdd: 'usage-add.sql',
  usageRead: 'usage-read.sql',
  // Quotas and rate limits
  quotaTenantGet: 'quota-tenant-get.sql',
  quotaTenantAll: 'quota-tenant-all.sql',
  quotaTenantUpsert: 'quota-tenant-upsert.sql',
  quotaPushCount: 'quota-push-count.sql',
  quotaDayRefund: 'quota-day-refund.sql',
  quotaDayGet: 'quota-day-get.sql',
  quotaPushedTotals: 'quota-pushed-totals.sql',
  limitKeyGet: 'limit-key-get.sql',
  limitKeyAll: 'limit-key-all.sql',
  limitKeyUpsert: 'limit-key-upsert.sql',
  limitKeyFind: 'limit-key-find.sql',
  limitVersion: 'limit-version.sql',
  limitTake: 'limit-take.sql',
  limitBucketSweep: 'limit-bucket-sweep.sql',
  // Users and sessions
  userCreate: 'user-create.sql',
  userList: 'user-list.sql',
  userDelete: 'user-delete.sql',
  userByName: 'user-by-name.sql',
  userByOidcSubject: 'user-by-oidc-subject.sql',
  sessionCreate: 'session-create.sql',
  sessionByHash: 'session-by-hash.sql',
  sessionDelete: 'session-delete.sql',
  sessionPrune: 'session-prune.sql',
} as const

export type GatewayStatementName = keyof typeof FILES

/** Every statement of the gateway, read once at import (a missing file fails the boot). */
export const GATEWAY_SQL = loadSqlRegistry<GatewayStatementName>(new URL('./queries/', import.meta.url), FILES)
