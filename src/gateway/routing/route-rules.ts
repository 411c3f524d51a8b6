/**
 * What a request through the gateway asks to do, and which key roles may do it (docs/gateway.md, "Roles").
 * Classified from the brokers' route table (docs/http-api.md, "Route table"); a path under the API prefixes that
 * the table does not list is refused here, never forwarded.
 */
import type { KeyRole } from '../keys/api-key.js'

/** What a route does, as far as roles go. */
export type RouteAction = 'read' | 'push' | 'consume' | 'modify' | 'manage'

/** How the gateway treats a request. */
export type RouteClass =
  | { readonly kind: 'public' }
  | { readonly kind: 'operator' }
  | { readonly kind: 'unknown' }
  | { readonly kind: 'tenant'; readonly action: RouteAction }

const SEGMENT = '[^/]+'

interface Rule {
  readonly method: string
  readonly pattern: RegExp
  readonly action: RouteAction
}

function rule(method: string, path: string, action: RouteAction): Rule {
  const source = path.replace(/:[A-Za-z]+/g, SEGMENT)
  return { method, pattern: new RegExp(`^${source}$`), action }
}

// Every tenant-facing route of the brokers (docs/http-api.md, "Route table").
const RULES: readonly Rule[] = [
  rule('POST', '/api/v1/push', 'push'),
  rule('GET', '/api/v1/pop/queue/:queue', 'consume'),
  rule('GET', '/api/v1/pop/queue/:queue/partition/:partition', 'consume'),
  rule('GET', '/api/v1/pop', 'consume'),
  rule('POST', '/api/v1/ack', 'consume'),
  rule('POST', '/api/v1/ack/batch', 'consume'),
  rule('POST', '/api/v1/transaction', 'consume'),
  rule('POST', '/api/v1/lease/:lease/extend', 'consume'),
  rule('POST', '/api/v1/consumer-groups/:group/subscription', 'consume'),
  rule('POST', '/streams/v1/queries', 'consume'),
  rule('POST', '/streams/v1/cycle', 'consume'),
  rule('POST', '/streams/v1/state/get', 'read'),
  rule('GET', '/api/v1/traces/names', 'read'),
  rule('GET', '/api/v1/traces/by-name/:name', 'read'),
  rule('GET', '/api/v1/traces/:partition/:transaction', 'read'),
  rule('GET', '/api/v1/resources/queues', 'read'),
  rule('GET', '/api/v1/resources/queues/:queue', 'read'),
  rule('GET', '/api/v1/resources/queues/:queue/depth', 'read'),
  rule('GET', '/api/v1/resources/namespaces', 'read'),
  rule('GET', '/api/v1/resources/tasks', 'read'),
  rule('GET', '/api/v1/resources/overview', 'read'),
  rule('GET', '/api/v1/messages', 'read'),
  rule('GET', '/api/v1/messages/:partition/:transaction', 'read'),
  rule('GET', '/api/v1/dlq', 'read'),
  rule('GET', '/api/v1/consumer-groups', 'read'),
  rule('GET', '/api/v1/consumer-groups/lagging', 'read'),
  rule('GET', '/api/v1/consumer-groups/:group', 'read'),
  rule('GET', '/api/v1/status', 'read'),
  rule('GET', '/api/v1/status/queues', 'read'),
  rule('GET', '/api/v1/status/queues/:queue', 'read'),
  rule('GET', '/api/v1/status/queues/:queue/messages', 'read'),
  rule('GET', '/api/v1/status/analytics', 'read'),
  rule('GET', '/api/v1/status/buffers', 'read'),
  rule('GET', '/api/v1/analytics/:view', 'read'),
  // A trace is recorded by whoever handles the message, producer or consumer: see ROLE_ACTIONS.
  rule('POST', '/api/v1/traces', 'push'),
  rule('DELETE', '/api/v1/messages/:partition/:transaction', 'modify'),
  rule('POST', '/api/v1/messages/:partition/:transaction/retry', 'modify'),
  rule('POST', '/api/v1/messages/:partition/:transaction/dlq', 'modify'),
  rule('POST', '/api/v1/consumer-groups/:group/queues/:queue/seek', 'modify'),
  rule('POST', '/api/v1/consumer-groups/:group/queues/:queue/partitions/:partition/seek', 'modify'),
  rule('POST', '/api/v1/configure', 'manage'),
  rule('DELETE', '/api/v1/resources/queues/:queue', 'manage'),
  rule('DELETE', '/api/v1/queues/:queue/clear', 'manage'),
  rule('DELETE', '/api/v1/consumer-groups/:group', 'manage'),
  rule('DELETE', '/api/v1/consumer-groups/:group/queues/:queue', 'manage'),
]

// Routes that act on every tenant or on the brokers themselves: no tenant key reaches them.
const OPERATOR = [/^\/api\/v1\/system(\/|$)/, /^\/internal(\/|$)/, /^\/metrics(\/|$)/, /^\/api\/v1\/stats\/refresh$/]

// Prefixes the brokers serve an API under; anything else is the dashboard (public files).
const API_PREFIXES = [/^\/api(\/|$)/, /^\/streams(\/|$)/]

/** Classifies a request by method and path (without the query string). */
export function classifyRoute(method: string, path: string): RouteClass {
  if (path === '/health' || path === '/health/live') return { kind: 'public' }
  if (OPERATOR.some((pattern) => pattern.test(path))) return { kind: 'operator' }
  const verb = method === 'HEAD' ? 'GET' : method
  const match = RULES.find((candidate) => candidate.method === verb && candidate.pattern.test(path))
  if (match) return { kind: 'tenant', action: match.action }
  if (API_PREFIXES.some((pattern) => pattern.test(path))) return { kind: 'unknown' }
  return method === 'GET' || method === 'HEAD' ? { kind: 'public' } : { kind: 'unknown' }
}

/** What each role may do. A trace (`push` above) is also allowed to consumers: they record what they handled. */
const ROLE_ACTIONS: Readonly<Record<KeyRole, readonly RouteAction[]>> = {
  'read-only': ['read'],
  producer: ['push'],
  consumer: ['consume'],
  'read-write': ['read', 'push', 'consume', 'modify'],
  'tenant-admin': ['read', 'push', 'consume', 'modify', 'manage'],
}

/** Whether `role` may do `action` on the route `path`. */
export function roleAllows(role: KeyRole, action: RouteAction, path: string): boolean {
  if (role === 'consumer' && path === '/api/v1/traces') return true
  return ROLE_ACTIONS[role].includes(action)
}

/** The broker role a minted token carries for a key role (the brokers' read-only, read-write, admin). */
export function brokerRoleOf(role: KeyRole): 'read-only' | 'read-write' | 'admin' {
  if (role === 'read-only') return 'read-only'
  return role === 'tenant-admin' ? 'admin' : 'read-write'
}
