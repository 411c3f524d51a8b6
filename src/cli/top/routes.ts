/**
 * The routes `queenctl top` polls (docs/cli.md, "The top dashboard") and which panes need each. A route is polled while
 * a pane that needs it is on screen, or always when the status bar or the rates need it (the rates are deltas of
 * counters, so their samples must not have gaps). Only the panes on screen cost requests: with 1,000 queues the queue
 * list is the largest answer, and only the Queues pane asks for it.
 */
import type {
  ConsumerGroupRow,
  DlqAnswer,
  MaintenanceAnswer,
  MeshAnswer,
  PostgresStatsAnswer,
  QueueDetailAnswer,
  QueueOpsAnswer,
  QueuesAnswer,
  StatusAnswer,
  SystemMetricsAnswer,
} from './wire.js'

/** The panes, in key order (`1`–`6`). */
export const PANES = ['overview', 'queues', 'groups', 'dlq', 'system', 'mesh'] as const

/** One pane of the dashboard. */
export type PaneKey = (typeof PANES)[number]

/** Titles of the panes, as the tab bar shows them. */
export const PANE_TITLES: Record<PaneKey, string> = {
  overview: 'Overview',
  queues: 'Queues',
  groups: 'Groups',
  dlq: 'DLQ',
  system: 'System',
  mesh: 'Mesh',
}

/** The answer of each route. */
export interface RouteAnswers {
  status: StatusAnswer
  queues: QueuesAnswer
  partitions: QueueDetailAnswer
  queueOps: QueueOpsAnswer
  groups: ConsumerGroupRow[]
  dlq: DlqAnswer
  systemMetrics: SystemMetricsAnswer
  postgres: PostgresStatsAnswer
  maintenance: MaintenanceAnswer
  mesh: MeshAnswer
}

/** A polled route. */
export type RouteKey = keyof RouteAnswers

/** What a route's request depends on. */
export interface PollContext {
  /** The pane on screen. */
  pane: PaneKey
  /** The queue whose partitions are open (Queues pane drill-in), or null. */
  drilledQueue: string | null
  /** True once a queue-ops answer arrived: later polls ask for a shorter window. */
  opsLoaded: boolean
  /** Epoch ms of the poll. */
  now: number
}

/** A request of a route. */
export interface RouteRequest {
  path: string
  query?: Record<string, string | number>
  /**
   * False for the operator-only routes (`/api/v1/system/*` and the replica-level analytics), which refuse a
   * request carrying the tenancy header with 403.
   */
  tenant: boolean
}

/** How to poll one route. */
interface RouteSpec {
  /** Whether the route is polled in this context. */
  needed(context: PollContext): boolean
  request(context: PollContext): RouteRequest
}

/** Minutes of per-minute history the Overview sparklines show (and the first queue-ops poll loads). */
export const HISTORY_MINUTES = 15

/**
 * Minutes each later queue-ops poll re-reads: a replica writes a minute's counts up to
 * METRICS_AGGREGATE_INTERVAL_S (60 s by default) after it, so re-reading a few closed minutes catches the
 * late additions while keeping each answer small (a few rows per active queue).
 */
export const OPS_REREAD_MINUTES = 5

/** Newest DLQ entries read per poll: the DLQ pane counts per queue and group among them. */
export const DLQ_SAMPLE = 1000

const always = () => true
const on =
  (...panes: PaneKey[]) =>
  (context: PollContext) =>
    panes.includes(context.pane)

const iso = (ms: number) => new Date(ms).toISOString()

const ROUTES: Record<RouteKey, RouteSpec> = {
  status: { needed: on('overview'), request: () => ({ path: '/api/v1/status', tenant: true }) },
  maintenance: { needed: always, request: () => ({ path: '/api/v1/system/maintenance', tenant: false }) },
  queueOps: {
    needed: always,
    request: (context) => ({
      path: '/api/v1/analytics/queue-ops',
      query: {
        from: iso(context.now - (context.opsLoaded ? OPS_REREAD_MINUTES : HISTORY_MINUTES) * 60_000),
        to: iso(context.now),
        interval: 'minute',
      },
      tenant: true,
    }),
  },
  queues: {
    needed: (context) => context.pane === 'queues' && context.drilledQueue === null,
    request: () => ({ path: '/api/v1/resources/queues', tenant: true }),
  },
  partitions: {
    needed: (context) => context.pane === 'queues' && context.drilledQueue !== null,
    request: (context) => ({
      path: `/api/v1/resources/queues/${encodeURIComponent(context.drilledQueue ?? '')}`,
      tenant: true,
    }),
  },
  groups: {
    needed: on('overview', 'queues', 'groups'),
    request: () => ({ path: '/api/v1/consumer-groups', tenant: true }),
  },
  dlq: {
    needed: on('queues', 'dlq'),
    request: () => ({ path: '/api/v1/dlq', query: { limit: DLQ_SAMPLE }, tenant: true }),
  },
  systemMetrics: {
    needed: on('overview', 'system'),
    request: (context) => ({
      path: '/api/v1/analytics/system-metrics',
      query: { from: iso(context.now - OPS_REREAD_MINUTES * 60_000), to: iso(context.now), interval: 'minute' },
      tenant: false,
    }),
  },
  postgres: { needed: on('system'), request: () => ({ path: '/api/v1/analytics/postgres-stats', tenant: false }) },
  mesh: { needed: on('mesh'), request: () => ({ path: '/api/v1/system/mesh', tenant: false }) },
}

/** Every route key, in a fixed order. */
export const ROUTE_KEYS = Object.keys(ROUTES) as RouteKey[]

/** The routes to poll in this context. */
export function neededRoutes(context: PollContext): RouteKey[] {
  return ROUTE_KEYS.filter((key) => ROUTES[key].needed(context))
}

/** The request of one route in this context. */
export function routeRequest(key: RouteKey, context: PollContext): RouteRequest {
  return ROUTES[key].request(context)
}
