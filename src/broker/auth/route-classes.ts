/**
 * The one table of routes (docs/http-api.md, "Route table"): for every route the broker serves, its auth class
 * (docs/operations.md, "Claims and roles") and its tenancy scope (docs/operations.md, "Tenancy"). The auth hook and the
 * tenancy gate both read it, and a test walks every registered route of a real broker against it, so a new route cannot
 * be left unclassified. A route missing from the table is treated as `admin` (fail closed).
 */

/** Who may call a route: public < read < write < admin. */
export type RouteClass = 'public' | 'read' | 'write' | 'admin'

/**
 * How the tenancy header applies: `tenant` routes need it, `operator` routes refuse it, `none` ignores it.
 */
export type TenancyScope = 'tenant' | 'operator' | 'none'

/** One row of the table. */
export interface RouteRule {
  readonly method: 'GET' | 'POST' | 'DELETE'
  /** The route pattern as registered with fastify (`:param` segments). */
  readonly url: string
  readonly auth: RouteClass
  readonly tenancy: TenancyScope
}

type Row =
  readonly [RouteRule['method'], string, RouteClass] | readonly [RouteRule['method'], string, 'admin', 'operator']

// Numbers are those of docs/http-api.md, "Route table". Tenancy follows from the path (14.1): /api/v1/system/*,
// /internal/* and the metrics routes are operator-only, the rest of /api and /streams is per tenant. A row
// may name itself operator-only: the replica-level analytics, whose answers are about the whole broker
// and its PostgreSQL (other sessions' SQL, every tenant's request counts), are operator surfaces, admin
// with JWT on and refused to a tenant (issue 40, docs/security.md).
const ROWS: readonly Row[] = [
  ['POST', '/api/v1/push', 'write'], // 1
  ['GET', '/api/v1/pop/queue/:queue', 'write'], // 2: pop takes leases
  ['GET', '/api/v1/pop/queue/:queue/partition/:partition', 'write'], // 3
  ['GET', '/api/v1/pop', 'write'], // 4
  ['POST', '/api/v1/ack', 'write'], // 5
  ['POST', '/api/v1/ack/batch', 'write'], // 6
  ['POST', '/api/v1/transaction', 'write'], // 7
  ['POST', '/api/v1/lease/:leaseId/extend', 'write'], // 8
  ['POST', '/api/v1/traces', 'write'], // 9
  ['GET', '/api/v1/traces/:partitionId/:transactionId', 'read'], // 10
  ['GET', '/api/v1/traces/by-name/:traceName', 'read'], // 11
  ['GET', '/api/v1/traces/names', 'read'], // 12
  ['POST', '/api/v1/configure', 'write'], // 13
  ['DELETE', '/api/v1/resources/queues/:queue', 'admin'], // 14
  ['GET', '/api/v1/resources/queues', 'read'], // 15
  ['GET', '/api/v1/resources/queues/:queue', 'read'], // 16
  ['GET', '/api/v1/resources/queues/:queue/depth', 'read'], // the Go broker's depth read (queenctl queue depth)
  ['GET', '/api/v1/resources/namespaces', 'read'], // 17
  ['GET', '/api/v1/resources/tasks', 'read'], // 18
  ['GET', '/api/v1/resources/overview', 'read'], // 19
  ['GET', '/api/v1/resources/partitions', 'read'], // ours: JS Admin.getPartitions (the reference broker answers 404)
  ['DELETE', '/api/v1/queues/:queue/clear', 'admin'], // 20
  ['GET', '/api/v1/messages', 'read'], // 21
  ['GET', '/api/v1/messages/:partitionId/:transactionId', 'read'], // 22
  ['DELETE', '/api/v1/messages/:partitionId/:transactionId', 'write'], // 23
  ['POST', '/api/v1/messages/:partitionId/:transactionId/retry', 'write'], // 24
  ['POST', '/api/v1/messages/:partitionId/:transactionId/dlq', 'write'], // 25
  ['GET', '/api/v1/dlq', 'read'], // 26
  ['GET', '/api/v1/consumer-groups', 'read'], // 27
  ['GET', '/api/v1/consumer-groups/lagging', 'read'], // 28
  ['GET', '/api/v1/consumer-groups/:group', 'read'], // 29
  ['DELETE', '/api/v1/consumer-groups/:group', 'admin'], // 30
  ['POST', '/api/v1/consumer-groups/:group/subscription', 'write'], // 31
  ['DELETE', '/api/v1/consumer-groups/:group/queues/:queue', 'admin'], // 32
  ['POST', '/api/v1/consumer-groups/:group/queues/:queue/seek', 'write'], // 33
  ['POST', '/api/v1/consumer-groups/:group/queues/:queue/partitions/:partition/seek', 'write'], // 34
  ['POST', '/api/v1/stats/refresh', 'admin'], // 35
  ['GET', '/api/v1/status', 'read'], // 36
  ['GET', '/api/v1/status/queues', 'read'], // 37
  ['GET', '/api/v1/status/queues/:queue', 'read'], // 38
  ['GET', '/api/v1/status/queues/:queue/messages', 'read'], // 39
  ['GET', '/api/v1/status/analytics', 'read'], // 40
  ['GET', '/api/v1/status/buffers', 'read'], // 41
  ['GET', '/api/v1/status/top', 'read'], // ours: the dashboard's overview leaders, bounded
  ['GET', '/api/v1/analytics/system-metrics', 'admin', 'operator'], // 42
  ['GET', '/api/v1/analytics/worker-metrics', 'admin', 'operator'], // 43
  ['GET', '/api/v1/analytics/postgres-stats', 'admin', 'operator'], // 44
  ['GET', '/api/v1/analytics/queue-lag', 'read'], // 45
  ['GET', '/api/v1/analytics/queue-ops', 'read'], // 46
  ['GET', '/api/v1/analytics/queue-parked-replicas', 'read'], // 47
  ['GET', '/api/v1/analytics/retention', 'read'], // 48
  ['GET', '/api/v1/system/maintenance', 'admin'], // 49
  ['POST', '/api/v1/system/maintenance', 'admin'], // 50
  ['GET', '/api/v1/system/maintenance/pop', 'admin'], // 51
  ['POST', '/api/v1/system/maintenance/pop', 'admin'], // 52
  ['GET', '/api/v1/system/shared-state', 'admin'], // 53
  ['GET', '/api/v1/system/mesh', 'admin'], // 54
  ['GET', '/health', 'public'], // 55
  ['GET', '/health/live', 'public'], // 56
  // 57, 58: operator surfaces, public only through JWT_SKIP_PATHS (its default lists both).
  ['GET', '/metrics', 'admin'],
  ['GET', '/metrics/prometheus', 'admin'],
  ['POST', '/internal/api/notify', 'admin'], // 59
  ['GET', '/internal/api/shared-state/stats', 'admin'], // 60
  ['GET', '/internal/api/inter-instance/stats', 'admin'], // 61
  ['POST', '/internal/api/test-hooks', 'admin'], // fault injection, only with QUEEN_TEST_HOOKS=true
  ['POST', '/streams/v1/queries', 'write'], // 62
  ['POST', '/streams/v1/cycle', 'write'], // 63
  ['POST', '/streams/v1/state/get', 'read'], // 64
  ['GET', '/streams/v1/queries', 'read'], // ours: the dashboard's streams page
  // 65: the dashboard's files hold no data (its pages call the API with the user's token); registered unless
  // QUEEN_DASHBOARD=false. The SPA fallback answers from the not-found handler, which serves only index.html.
  ['GET', '/', 'public'],
  ['GET', '/assets/*', 'public'],
]

function tenancyOf(url: string): TenancyScope {
  if (url.startsWith('/api/v1/system/') || url.startsWith('/internal/') || url.startsWith('/metrics')) {
    return 'operator'
  }
  return url.startsWith('/api/') || url.startsWith('/streams/') ? 'tenant' : 'none'
}

/** Every classified route. */
export const ROUTE_TABLE: readonly RouteRule[] = ROWS.map(([method, url, auth, scope]) => ({
  method,
  url,
  auth,
  tenancy: scope ?? tenancyOf(url),
}))

const BY_KEY = new Map(ROUTE_TABLE.map((rule) => [`${rule.method} ${rule.url}`, rule]))
const BY_URL = new Map(ROUTE_TABLE.map((rule) => [rule.url, rule.tenancy]))

/** The rule of a registered route; HEAD shares its GET route's rule (fastify adds HEAD for every GET). */
export function routeRule(method: string, url: string): RouteRule | undefined {
  return BY_KEY.get(`${method === 'HEAD' ? 'GET' : method} ${url}`)
}

/**
 * How the tenancy header applies to a route pattern: the table's scope, or for a route the table does not
 * know (a test fails on those) the same rule by path prefix.
 */
export function tenancyScopeOf(url: string): TenancyScope {
  return BY_URL.get(url) ?? tenancyOf(url)
}

const RANK: Record<RouteClass, number> = { public: 0, read: 1, write: 2, admin: 3 }

/** Whether a caller allowed `granted` may call a route of class `needed`. */
export function classAllows(granted: RouteClass, needed: RouteClass): boolean {
  return RANK[granted] >= RANK[needed]
}
