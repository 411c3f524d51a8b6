/**
 * The queues grid (GET /api/v1/resources/queues, plus the activity of queue-activity.ts: a push sparkline
 * and the lag per queue, in requests whose number does not grow with the queues). Sorted in the page by
 * name, pending, total, partitions, lag (the age of the oldest message a group has not settled) or density
 * (messages per partition); the sort, its direction and the name filter are in the URL. A row's name links
 * to the queue; an admin can delete a queue from its row, behind a confirmation.
 */
import { useState, type ReactNode } from 'react'
import type { QueueDeleteAnswer, QueueListAnswer, QueueRow } from '../../../src/wire/index.js'
import { apiDelete, apiGet } from '../api'
import { mayAdminister, useAuth } from '../auth'
import { ConfirmDialog } from '../components/ConfirmDialog'
import { DataTable, type Column } from '../components/DataTable'
import { ErrorNote } from '../components/ErrorNote'
import { Link } from '../components/Link'
import { Sparkline } from '../components/Sparkline'
import { formatCount, formatDuration } from '../format'
import { fetchQueueActivity, forgetActivity, type QueueActivity } from '../queue-activity'
import { hrefOf, navigate, type QueueSort, type SortDirection } from '../router'
import { usePoll } from '../use-poll'

/** A listed queue with its activity. */
interface GridRow {
  queue: QueueRow
  activity: QueueActivity | undefined
}

/** Messages per partition: how densely the queue's messages sit in its partitions. */
function density(queue: QueueRow): number {
  return queue.partitions === 0 ? 0 : queue.messages.total / queue.partitions
}

const density1 = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 })

const SORTABLE: { sort: QueueSort; label: string; numeric: boolean; cell: (row: GridRow) => ReactNode }[] = [
  {
    sort: 'name',
    label: 'Name',
    numeric: false,
    cell: ({ queue }) => <Link href={hrefOf({ view: 'queue', name: queue.name })}>{queue.name}</Link>,
  },
  { sort: 'pending', label: 'Pending', numeric: true, cell: ({ queue }) => formatCount(queue.messages.pending) },
  { sort: 'total', label: 'Total', numeric: true, cell: ({ queue }) => formatCount(queue.messages.total) },
  { sort: 'partitions', label: 'Partitions', numeric: true, cell: ({ queue }) => formatCount(queue.partitions) },
  {
    sort: 'lag',
    label: 'Lag',
    numeric: true,
    cell: ({ activity }) =>
      activity === undefined || activity.lagSeconds <= 0 ? '–' : formatDuration(activity.lagSeconds),
  },
  { sort: 'density', label: 'Density', numeric: true, cell: ({ queue }) => density1.format(density(queue)) },
]

const OTHER_COLUMNS: Column<GridRow>[] = [
  {
    key: 'processing',
    header: 'Processing',
    numeric: true,
    cell: ({ queue }) => formatCount(queue.messages.processing),
  },
  {
    key: 'pushes',
    header: 'Pushes, last hour',
    cell: ({ queue, activity }) =>
      activity === undefined || activity.pushes.length === 0 ? (
        <span className="note">none</span>
      ) : (
        <span className="spark-cell">
          <Sparkline
            values={activity.pushes}
            label={`${queue.name}: ${formatCount(activity.pushed)} pushed in the last hour, per minute`}
          />
          <span className="num">{formatCount(activity.pushed)}</span>
        </span>
      ),
  },
  { key: 'namespace', header: 'Namespace', cell: ({ queue }) => queue.namespace },
]

function sortKey(row: GridRow, sort: QueueSort): number | string {
  switch (sort) {
    case 'name':
      return row.queue.name
    case 'pending':
      return row.queue.messages.pending
    case 'total':
      return row.queue.messages.total
    case 'partitions':
      return row.queue.partitions
    case 'lag':
      return row.activity?.lagSeconds ?? 0
    case 'density':
      return density(row.queue)
  }
}

function sorted(rows: readonly GridRow[], sort: QueueSort, dir: SortDirection): GridRow[] {
  const sign = dir === 'asc' ? 1 : -1
  return [...rows].sort((a, b) => {
    const x = sortKey(a, sort)
    const y = sortKey(b, sort)
    const order = typeof x === 'string' || typeof y === 'string' ? String(x).localeCompare(String(y)) : x - y
    return order * sign || a.queue.name.localeCompare(b.queue.name)
  })
}

async function fetchGrid(path: string, signal: AbortSignal) {
  const [list, activity] = await Promise.all([
    apiGet<QueueListAnswer>(path, 'read', signal),
    fetchQueueActivity(signal),
  ])
  return { list, activity }
}

export function Queues({ sort, dir, search }: { sort: QueueSort; dir: SortDirection; search: string }) {
  const auth = useAuth()
  const admin = mayAdminister(auth.token) && !auth.required
  const [deleting, setDeleting] = useState<string | undefined>()
  const path =
    search === '' ? '/api/v1/resources/queues' : `/api/v1/resources/queues?search=${encodeURIComponent(search)}`
  const poll = usePoll(`queues:${search}`, (signal) => fetchGrid(path, signal))
  const { data, error } = poll
  const rows =
    data === undefined
      ? []
      : sorted(
          data.list.queues.map((queue) => ({ queue, activity: data.activity.get(queue.name) })),
          sort,
          dir,
        )

  const sortBy = (column: QueueSort) => {
    const nextDir: SortDirection =
      column === sort ? (dir === 'asc' ? 'desc' : 'asc') : column === 'name' ? 'asc' : 'desc'
    navigate(hrefOf({ view: 'queues', sort: column, dir: nextDir, search }))
  }

  const columns: Column<GridRow>[] = [
    ...SORTABLE.map((column) => ({
      key: column.sort,
      numeric: column.numeric,
      cell: column.cell,
      sort: column.sort === sort ? (dir === 'asc' ? ('ascending' as const) : ('descending' as const)) : undefined,
      header: (
        <button type="button" className="sort" onClick={() => sortBy(column.sort)}>
          {column.label}
          <span aria-hidden="true">{column.sort === sort ? (dir === 'asc' ? ' ▲' : ' ▼') : ''}</span>
        </button>
      ),
    })),
    ...OTHER_COLUMNS,
    ...(admin
      ? [
          {
            key: 'actions',
            header: <span className="sr-only">Actions</span>,
            cell: ({ queue }: GridRow) => (
              <button
                type="button"
                className="danger"
                aria-label={`Delete queue ${queue.name}`}
                onClick={() => setDeleting(queue.name)}
              >
                Delete
              </button>
            ),
          },
        ]
      : []),
  ]

  return (
    <>
      <div className="page-title">
        <h1>Queues</h1>
        <div className="filter">
          <label htmlFor="queue-filter">Filter by name</label>
          <input
            id="queue-filter"
            type="search"
            value={search}
            onChange={(event) =>
              navigate(hrefOf({ view: 'queues', sort, dir, search: event.target.value }), { replace: true })
            }
          />
        </div>
      </div>
      <ErrorNote error={error} />
      {data !== undefined && (
        <>
          <DataTable
            className="card"
            caption={`Queues, sorted by ${sort} ${dir === 'asc' ? 'ascending' : 'descending'}`}
            columns={columns}
            rows={rows}
            rowKey={(row) => row.queue.id}
          />
          {rows.length === 0 && <p>{search === '' ? 'No queues yet.' : `No queue name contains “${search}”.`}</p>}
        </>
      )}
      <ConfirmDialog
        open={deleting !== undefined}
        title={`Delete queue ${deleting ?? ''}?`}
        body="The queue and everything under it are deleted: partitions, messages, consumer-group cursors, leases, dead letters, traces and subscriptions. This cannot be undone."
        confirmLabel="Delete queue"
        onConfirm={async () => {
          if (deleting === undefined) return
          await apiDelete<QueueDeleteAnswer>(`/api/v1/resources/queues/${encodeURIComponent(deleting)}`, 'admin')
          forgetActivity()
          poll.reload()
        }}
        onClose={() => setDeleting(undefined)}
      />
    </>
  )
}
