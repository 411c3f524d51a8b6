/**
 * The URLs of the inspection pages (messages, DLQ, traces): every filter, the page of the list and the open
 * message or entry are query parameters, so a link reopens the same view (docs/dashboard.md, "What it
 * shows"). router.ts dispatches to these; defaults are left out of the URL.
 */

/** How far back a list reaches: `all` sends no lower bound. */
export const SINCE = ['15m', '1h', '6h', '24h', '7d', '30d', 'all'] as const
/** One of {@link SINCE}. */
export type Since = (typeof SINCE)[number]

const SINCE_MS: Record<Exclude<Since, 'all'>, number> = {
  '15m': 900_000,
  '1h': 3_600_000,
  '6h': 21_600_000,
  '24h': 86_400_000,
  '7d': 604_800_000,
  '30d': 2_592_000_000,
}

/** The lower time bound of `since` as an ISO timestamp, from now; undefined for `all`. */
export function sinceFrom(since: Since, now = Date.now()): string | undefined {
  return since === 'all' ? undefined : new Date(now - SINCE_MS[since]).toISOString()
}

/** Statuses the messages list filters on (docs/http-api.md, "List messages"); '' is every status. */
export const MESSAGE_STATUSES = ['', 'pending', 'processing', 'completed', 'dead_letter'] as const
/** One of {@link MESSAGE_STATUSES}. */
export type MessageStatusFilter = (typeof MESSAGE_STATUSES)[number]

/** A message by its path ids. */
export interface MessageRef {
  partitionId: string
  transactionId: string
}

/** The messages page: filters, list page, open message. */
export interface MessagesRoute {
  view: 'messages'
  queue: string
  partition: string
  status: MessageStatusFilter
  group: string
  since: Since
  page: number
  open: MessageRef | undefined
}

/** The DLQ page: filters, list page, open entry (a message and the group that gave up on it). */
export interface DlqRoute {
  view: 'dlq'
  queue: string
  partition: string
  group: string
  since: Since
  page: number
  open: (MessageRef & { group: string }) | undefined
}

/** The traces page: the trace name searched. */
export interface TracesRoute {
  view: 'traces'
  name: string
}

function oneOf<T extends string>(values: readonly T[], value: string | null, fallback: T): T {
  return values.find((candidate) => candidate === value) ?? fallback
}

function pageOf(query: URLSearchParams): number {
  const page = Number(query.get('page') ?? '1')
  return Number.isSafeInteger(page) && page >= 1 ? page : 1
}

function refOf(query: URLSearchParams): MessageRef | undefined {
  const partitionId = query.get('pid')
  const transactionId = query.get('tx')
  return partitionId && transactionId ? { partitionId, transactionId } : undefined
}

/** The messages route of a query string. */
export function parseMessagesRoute(query: URLSearchParams): MessagesRoute {
  return {
    view: 'messages',
    queue: query.get('queue') ?? '',
    partition: query.get('partition') ?? '',
    status: oneOf(MESSAGE_STATUSES, query.get('status'), ''),
    group: query.get('group') ?? '',
    since: oneOf(SINCE, query.get('since'), '1h'),
    page: pageOf(query),
    open: refOf(query),
  }
}

/** The DLQ route of a query string. */
export function parseDlqRoute(query: URLSearchParams): DlqRoute {
  const ref = refOf(query)
  const group = query.get('cg')
  return {
    view: 'dlq',
    queue: query.get('queue') ?? '',
    partition: query.get('partition') ?? '',
    group: query.get('group') ?? '',
    since: oneOf(SINCE, query.get('since'), 'all'),
    page: pageOf(query),
    open: ref === undefined || group === null ? undefined : { ...ref, group },
  }
}

/** The traces route of a query string. */
export function parseTracesRoute(query: URLSearchParams): TracesRoute {
  return { view: 'traces', name: query.get('name') ?? '' }
}

function withQuery(path: string, entries: [string, string | number | undefined, string | number][]): string {
  const query = new URLSearchParams()
  for (const [key, value, fallback] of entries) {
    if (value !== undefined && value !== fallback) query.set(key, String(value))
  }
  const text = query.toString()
  return text === '' ? path : `${path}?${text}`
}

/** The URL of the messages route. */
export function messagesHref(route: Omit<MessagesRoute, 'view'>): string {
  return withQuery('/messages', [
    ['queue', route.queue, ''],
    ['partition', route.partition, ''],
    ['status', route.status, ''],
    ['group', route.group, ''],
    ['since', route.since, '1h'],
    ['page', route.page, 1],
    ['pid', route.open?.partitionId, ''],
    ['tx', route.open?.transactionId, ''],
  ])
}

/** The URL of the DLQ route. */
export function dlqHref(route: Omit<DlqRoute, 'view'>): string {
  return withQuery('/dlq', [
    ['queue', route.queue, ''],
    ['partition', route.partition, ''],
    ['group', route.group, ''],
    ['since', route.since, 'all'],
    ['page', route.page, 1],
    ['pid', route.open?.partitionId, ''],
    ['tx', route.open?.transactionId, ''],
    ['cg', route.open?.group, '\u0000'],
  ])
}

/** The URL of the traces route. */
export function tracesHref(route: Omit<TracesRoute, 'view'>): string {
  return withQuery('/traces', [['name', route.name, '']])
}
