/**
 * Routing by path and query string with the History API: every view and filter is in the URL, so a link
 * can be shared and the back button works. The broker answers any unknown GET outside its API prefixes with
 * index.html (docs/http-api.md, "Unknown routes"), so a deep link opens the dashboard on its view.
 */
import { useSyncExternalStore } from 'react'
import {
  dlqHref,
  messagesHref,
  parseDlqRoute,
  parseMessagesRoute,
  parseTracesRoute,
  tracesHref,
  type DlqRoute,
  type MessagesRoute,
  type TracesRoute,
} from './inspect-routes'

/** The overview's time windows. */
export const WINDOWS = ['1h', '6h', '24h'] as const
/** One of {@link WINDOWS}. */
export type TimeWindow = (typeof WINDOWS)[number]

/** Columns the queues grid sorts by. */
export const QUEUE_SORTS = ['name', 'pending', 'partitions', 'total', 'lag', 'density'] as const
/** One of {@link QUEUE_SORTS}. */
export type QueueSort = (typeof QUEUE_SORTS)[number]
/** Sort direction. */
export type SortDirection = 'asc' | 'desc'

/** A view and its parameters, as the URL says. */
export type Route =
  | { view: 'overview'; window: TimeWindow }
  | { view: 'queues'; sort: QueueSort; dir: SortDirection; search: string }
  | { view: 'queue'; name: string }
  | MessagesRoute
  | DlqRoute
  | TracesRoute
  | { view: 'analytics'; window: TimeWindow }
  | { view: 'system'; window: TimeWindow }
  | { view: 'replicas'; window: TimeWindow }
  | { view: 'streams' }
  | { view: 'not-found'; path: string }
  | { view: 'operations'; window: TimeWindow }
  | { view: 'consumer-groups'; threshold: number; lagging: boolean; search: string }
  | { view: 'consumer-group'; name: string; threshold: number }

/** The lag threshold of the consumer-group pages, in seconds, when the URL names none (the broker's `Lagging`). */
export const DEFAULT_LAG_THRESHOLD_S = 300

/** A threshold in whole seconds from the URL, else the default. */
function thresholdOf(query: URLSearchParams): number {
  const text = query.get('threshold')
  return text !== null && /^\d{1,9}$/.test(text) ? Number(text) : DEFAULT_LAG_THRESHOLD_S
}

function oneOf<T extends string>(values: readonly T[], value: string | null, fallback: T): T {
  return values.find((candidate) => candidate === value) ?? fallback
}

/** The route of a location. */
export function parseRoute(pathname: string, search: string): Route {
  const query = new URLSearchParams(search)
  if (pathname === '/' || pathname === '')
    return { view: 'overview', window: oneOf(WINDOWS, query.get('window'), '1h') }
  if (pathname === '/queues') {
    const sort = oneOf(QUEUE_SORTS, query.get('sort'), 'name')
    const dir = oneOf(['asc', 'desc'] as const, query.get('dir'), sort === 'name' ? 'asc' : 'desc')
    return { view: 'queues', sort, dir, search: query.get('q') ?? '' }
  }
  if (pathname === '/operations') return { view: 'operations', window: oneOf(WINDOWS, query.get('window'), '1h') }
  if (pathname === '/consumer-groups') {
    return {
      view: 'consumer-groups',
      threshold: thresholdOf(query),
      lagging: query.get('lagging') === '1',
      search: query.get('q') ?? '',
    }
  }
  const group = /^\/consumer-groups\/([^/]+)$/.exec(pathname)
  if (group?.[1] !== undefined) {
    try {
      return { view: 'consumer-group', name: decodeURIComponent(group[1]), threshold: thresholdOf(query) }
    } catch {
      return { view: 'not-found', path: pathname }
    }
  }
  if (pathname === '/messages') return parseMessagesRoute(query)
  if (pathname === '/dlq') return parseDlqRoute(query)
  if (pathname === '/traces') return parseTracesRoute(query)
  if (pathname === '/analytics' || pathname === '/system' || pathname === '/replicas') {
    return {
      view: pathname.slice(1) as 'analytics' | 'system' | 'replicas',
      window: oneOf(WINDOWS, query.get('window'), '1h'),
    }
  }
  if (pathname === '/streams') return { view: 'streams' }
  const queue = /^\/queues\/([^/]+)$/.exec(pathname)
  if (queue?.[1] !== undefined) {
    try {
      return { view: 'queue', name: decodeURIComponent(queue[1]) }
    } catch {
      return { view: 'not-found', path: pathname }
    }
  }
  return { view: 'not-found', path: pathname }
}

/** The URL of a route (defaults left out). */
export function hrefOf(route: Route): string {
  switch (route.view) {
    case 'overview':
      return route.window === '1h' ? '/' : `/?window=${route.window}`
    case 'queues': {
      const query = new URLSearchParams()
      if (route.sort !== 'name') query.set('sort', route.sort)
      if (route.dir !== (route.sort === 'name' ? 'asc' : 'desc')) query.set('dir', route.dir)
      if (route.search !== '') query.set('q', route.search)
      const text = query.toString()
      return text === '' ? '/queues' : `/queues?${text}`
    }
    case 'queue':
      return `/queues/${encodeURIComponent(route.name)}`
    case 'messages':
      return messagesHref(route)
    case 'dlq':
      return dlqHref(route)
    case 'traces':
      return tracesHref(route)
    case 'analytics':
    case 'system':
    case 'replicas':
      return route.window === '1h' ? `/${route.view}` : `/${route.view}?window=${route.window}`
    case 'streams':
      return '/streams'
    case 'not-found':
      return route.path
    case 'operations':
      return route.window === '1h' ? '/operations' : `/operations?window=${route.window}`
    case 'consumer-groups': {
      const query = new URLSearchParams()
      if (route.threshold !== DEFAULT_LAG_THRESHOLD_S) query.set('threshold', String(route.threshold))
      if (route.lagging) query.set('lagging', '1')
      if (route.search !== '') query.set('q', route.search)
      const text = query.toString()
      return text === '' ? '/consumer-groups' : `/consumer-groups?${text}`
    }
    case 'consumer-group': {
      const path = `/consumer-groups/${encodeURIComponent(route.name)}`
      return route.threshold === DEFAULT_LAG_THRESHOLD_S ? path : `${path}?threshold=${route.threshold}`
    }
  }
}

const listeners = new Set<() => void>()
window.addEventListener('popstate', () => {
  for (const listener of listeners) listener()
})

/** Goes to `href` without reloading; `replace` keeps the history entry (typing in a filter). */
export function navigate(href: string, options: { replace?: boolean } = {}): void {
  if (options.replace) window.history.replaceState(null, '', href)
  else window.history.pushState(null, '', href)
  for (const listener of listeners) listener()
}

function locationKey(): string {
  return window.location.pathname + window.location.search
}

/** The current route, re-rendering on navigation. */
export function useRoute(): Route {
  const key = useSyncExternalStore((listener) => {
    listeners.add(listener)
    return () => listeners.delete(listener)
  }, locationKey)
  const url = new URL(key, window.location.origin)
  return parseRoute(url.pathname, url.search)
}
