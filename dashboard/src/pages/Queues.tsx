/**
 * The queues grid (GET /api/v1/resources/queues, one request per tick; the name filter is the route's
 * `search`). Sorted in the page by name, pending, total or partitions; the sort, its direction and the filter
 * are in the URL. A row's name links to the queue.
 */
import type { ReactNode } from 'react'
import type { QueueListAnswer, QueueRow } from '../../../src/wire/index.js'
import { apiGet } from '../api'
import { DataTable, type Column } from '../components/DataTable'
import { ErrorNote } from '../components/ErrorNote'
import { Link } from '../components/Link'
import { formatCount } from '../format'
import { hrefOf, navigate, type QueueSort, type SortDirection } from '../router'
import { usePoll } from '../use-poll'

const SORTABLE: { sort: QueueSort; label: string; numeric: boolean; cell: (queue: QueueRow) => ReactNode }[] = [
  {
    sort: 'name',
    label: 'Name',
    numeric: false,
    cell: (q) => <Link href={hrefOf({ view: 'queue', name: q.name })}>{q.name}</Link>,
  },
  { sort: 'pending', label: 'Pending', numeric: true, cell: (q) => formatCount(q.messages.pending) },
  { sort: 'total', label: 'Total', numeric: true, cell: (q) => formatCount(q.messages.total) },
  { sort: 'partitions', label: 'Partitions', numeric: true, cell: (q) => formatCount(q.partitions) },
]

const OTHER_COLUMNS: Column<QueueRow>[] = [
  { key: 'processing', header: 'Processing', numeric: true, cell: (q) => formatCount(q.messages.processing) },
  { key: 'namespace', header: 'Namespace', cell: (q) => q.namespace },
]

function sortKey(queue: QueueRow, sort: QueueSort): number | string {
  switch (sort) {
    case 'name':
      return queue.name
    case 'pending':
      return queue.messages.pending
    case 'total':
      return queue.messages.total
    case 'partitions':
      return queue.partitions
  }
}

function sorted(queues: readonly QueueRow[], sort: QueueSort, dir: SortDirection): QueueRow[] {
  const sign = dir === 'asc' ? 1 : -1
  return [...queues].sort((a, b) => {
    const x = sortKey(a, sort)
    const y = sortKey(b, sort)
    const order = typeof x === 'string' || typeof y === 'string' ? String(x).localeCompare(String(y)) : x - y
    return order * sign || a.name.localeCompare(b.name)
  })
}

export function Queues({ sort, dir, search }: { sort: QueueSort; dir: SortDirection; search: string }) {
  const path =
    search === '' ? '/api/v1/resources/queues' : `/api/v1/resources/queues?search=${encodeURIComponent(search)}`
  const { data, error } = usePoll(`queues:${search}`, (signal) => apiGet<QueueListAnswer>(path, 'read', signal))
  const rows = data === undefined ? [] : sorted(data.queues, sort, dir)

  const columns: Column<QueueRow>[] = [
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
  ]

  const sortBy = (column: QueueSort) => {
    const nextDir: SortDirection =
      column === sort ? (dir === 'asc' ? 'desc' : 'asc') : column === 'name' ? 'asc' : 'desc'
    navigate(hrefOf({ view: 'queues', sort: column, dir: nextDir, search }))
  }

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
            rowKey={(queue) => queue.id}
          />
          {rows.length === 0 && <p>{search === '' ? 'No queues yet.' : `No queue name contains “${search}”.`}</p>}
        </>
      )}
    </>
  )
}
