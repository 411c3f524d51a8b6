/**
 * The header: navigation, the broker's health (GET /health, public), the live/pause switch, the theme toggle,
 * and the two maintenance toggles (admin; hidden when the token claims a lesser role), each behind a
 * confirmation. The maintenance banners below it read the same /health answer, so every role sees them.
 */
import { useState } from 'react'
import type { HealthAnswer, MaintenanceSetAnswer, PopMaintenanceAnswer } from '../../../src/wire/index.js'
import { apiPost, fetchHealth } from '../api'
import { claimedRoles, mayAdminister, signOut, useAuth } from '../auth'
import { formatDuration } from '../format'
import { hrefOf, navigate, type Route } from '../router'
import { setTheme, useTheme } from '../theme'
import { setLive, useLive, usePoll } from '../use-poll'
import { ConfirmDialog } from './ConfirmDialog'
import { Link } from './Link'

type Kind = 'push' | 'pop'

/** The header's links, each marked current on the views it leads to. */
const NAVIGATION: { href: string; label: string; views: Route['view'][] }[] = [
  { href: '/', label: 'Overview', views: ['overview'] },
  { href: '/queues', label: 'Queues', views: ['queues', 'queue'] },
  { href: '/operations', label: 'Operations', views: ['operations'] },
  { href: '/consumer-groups', label: 'Consumer groups', views: ['consumer-groups', 'consumer-group'] },
  { href: '/messages', label: 'Messages', views: ['messages'] },
  { href: '/dlq', label: 'DLQ', views: ['dlq'] },
  { href: '/traces', label: 'Traces', views: ['traces'] },
  { href: '/analytics', label: 'Analytics', views: ['analytics'] },
  { href: '/system', label: 'System', views: ['system'] },
  { href: '/replicas', label: 'Replicas', views: ['replicas'] },
  { href: '/streams', label: 'Streams', views: ['streams'] },
]

const MAINTENANCE: Record<Kind, { label: string; path: string; effect: string }> = {
  push: {
    label: 'Push maintenance',
    path: '/api/v1/system/maintenance',
    effect: 'pushes are written to the disk spool instead of PostgreSQL, and replayed when it is turned off',
  },
  pop: {
    label: 'Pop maintenance',
    path: '/api/v1/system/maintenance/pop',
    effect: 'pops deliver no messages (long-polls wait) until it is turned off',
  },
}

export function Header({ route }: { route: Route }) {
  const health = usePoll<HealthAnswer>('health', fetchHealth)
  const auth = useAuth()
  const live = useLive()
  const theme = useTheme()
  const [asking, setAsking] = useState<{ kind: Kind; enabled: boolean } | undefined>()
  const flags = health.data?.maintenance
  const admin = mayAdminister(auth.token) && !auth.required

  const toggle = async (kind: Kind, enabled: boolean) => {
    await apiPost<MaintenanceSetAnswer | PopMaintenanceAnswer>(MAINTENANCE[kind].path, 'admin', { enabled })
    health.reload()
  }

  return (
    <>
      <header className="header">
        <div className="brand">
          <span className="logo" aria-hidden="true">
            ♛
          </span>{' '}
          Queen
        </div>
        <nav aria-label="Views">
          <ul>
            {NAVIGATION.map((item) => (
              <li key={item.href}>
                <Link href={item.href} aria-current={item.views.includes(route.view) ? 'page' : undefined}>
                  {item.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <QueueSearch />
        <div className="header-tools">
          <HealthBadge health={health.data} error={health.error} />
          <button type="button" aria-pressed={!live} onClick={() => setLive(!live)}>
            {live ? 'Pause updates' : 'Resume updates'}
          </button>
          <button type="button" onClick={() => setTheme(theme === 'dark' ? 'light' : 'dark')}>
            {theme === 'dark' ? 'Light theme' : 'Dark theme'}
          </button>
          {auth.token !== undefined && (
            <>
              <span className="badge">Signed in as {claimedRoles(auth.token).join(', ') || 'no role'}</span>
              <button type="button" onClick={signOut}>
                Sign out
              </button>
            </>
          )}
        </div>
      </header>
      {flags !== undefined && admin && (
        <section className="maintenance-tools" aria-label="Maintenance">
          <span className="tools-label">Maintenance</span>
          {(['push', 'pop'] as const).map((kind) => (
            <button
              key={kind}
              type="button"
              className={flags[kind] ? 'danger' : undefined}
              onClick={() => setAsking({ kind, enabled: !flags[kind] })}
            >
              {flags[kind]
                ? `Turn ${MAINTENANCE[kind].label.toLowerCase()} off`
                : `Turn ${MAINTENANCE[kind].label.toLowerCase()} on`}
            </button>
          ))}
        </section>
      )}
      {flags !== undefined &&
        (['push', 'pop'] as const)
          .filter((kind) => flags[kind])
          .map((kind) => (
            <p key={kind} className="banner" role="status">
              <strong>{MAINTENANCE[kind].label} is on:</strong> {MAINTENANCE[kind].effect}.
            </p>
          ))}
      <ConfirmDialog
        open={asking !== undefined}
        title={
          asking === undefined
            ? ''
            : `Turn ${MAINTENANCE[asking.kind].label.toLowerCase()} ${asking.enabled ? 'on' : 'off'}?`
        }
        body={
          asking === undefined
            ? ''
            : asking.enabled
              ? `While it is on, ${MAINTENANCE[asking.kind].effect}. Every replica follows.`
              : 'Normal operation resumes on every replica.'
        }
        confirmLabel={asking?.enabled ? 'Turn on' : 'Turn off'}
        onConfirm={() => (asking === undefined ? Promise.resolve() : toggle(asking.kind, asking.enabled))}
        onClose={() => setAsking(undefined)}
      />
    </>
  )
}

function HealthBadge({ health, error }: { health: HealthAnswer | undefined; error: Error | undefined }) {
  if (health === undefined) {
    return <span className="badge">{error === undefined ? 'Connecting…' : 'Broker unreachable'}</span>
  }
  const healthy = health.status === 'healthy'
  return (
    <span className={healthy ? 'badge ok' : 'badge bad'} title={`database ${health.database ?? 'unknown'}`}>
      <span className="sr-only">Broker </span>
      {health.status} · {health.server_id} · v{health.version} · up {formatDuration(health.uptime_s)}
    </span>
  )
}

/**
 * The header's search: a queue name, or part of one, opens the queues grid filtered by it (the filter is in the
 * URL, so the result is a link like any other view).
 */
function QueueSearch() {
  const [text, setText] = useState('')
  return (
    <form
      role="search"
      className="header-search"
      onSubmit={(event) => {
        event.preventDefault()
        navigate(hrefOf({ view: 'queues', sort: 'name', dir: 'asc', search: text.trim() }))
      }}
    >
      <label htmlFor="header-search">Search queues</label>
      <input
        id="header-search"
        type="search"
        value={text}
        placeholder="queue name"
        onChange={(event) => setText(event.target.value)}
      />
    </form>
  )
}
