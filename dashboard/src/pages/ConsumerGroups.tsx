/**
 * The consumer groups (GET /api/v1/consumer-groups, one request per tick: one row per group and queue, lag
 * computed live by the broker). A lag threshold in seconds marks the rows whose oldest unsettled message is
 * older, and can hide the others; the threshold, that filter and a name filter are in the URL. A group's
 * name links to its page, where the seeks and the delete are.
 */
import type { ConsumerGroupRow } from '../../../src/wire/index.js'
import { apiGet } from '../api'
import { DataTable, type Column } from '../components/DataTable'
import { ErrorNote } from '../components/ErrorNote'
import { Link } from '../components/Link'
import { LagThreshold } from '../components/LagThreshold'
import { formatCount, formatDuration } from '../format'
import { hrefOf, navigate } from '../router'
import { usePoll } from '../use-poll'

/** The group name the broker gives queue mode (docs/http-api.md, "The HTTP API": "Queue mode"). */
export const QUEUE_MODE = '__QUEUE_MODE__'

/** A group's name as people read it. */
export function groupLabel(name: string): string {
  return name === QUEUE_MODE ? 'queue mode' : name
}

function columns(threshold: number): Column<ConsumerGroupRow>[] {
  return [
    {
      key: 'group',
      header: 'Group',
      cell: (row) => (
        <Link href={hrefOf({ view: 'consumer-group', name: row.name, threshold })}>{groupLabel(row.name)}</Link>
      ),
    },
    {
      key: 'queue',
      header: 'Queue',
      cell: (row) => <Link href={hrefOf({ view: 'queue', name: row.queueName })}>{row.queueName}</Link>,
    },
    { key: 'partitions', header: 'Partitions', numeric: true, cell: (row) => formatCount(row.members) },
    { key: 'lagging', header: 'Partitions behind', numeric: true, cell: (row) => formatCount(row.partitionsWithLag) },
    { key: 'lag', header: 'Unsettled', numeric: true, cell: (row) => formatCount(row.totalLag) },
    {
      key: 'age',
      header: 'Oldest unsettled',
      numeric: true,
      cell: (row) => <LagAge seconds={row.maxTimeLag} threshold={threshold} />,
    },
    { key: 'state', header: 'State', cell: (row) => row.state },
  ]
}

/** An age, marked in words (not colour alone) when it is past the threshold. */
export function LagAge({ seconds, threshold }: { seconds: number; threshold: number }) {
  if (seconds <= 0) return <>–</>
  const over = seconds > threshold
  return (
    <span className={over ? 'over-threshold' : undefined}>
      {formatDuration(seconds)}
      {over && <span className="flag"> over threshold</span>}
    </span>
  )
}

export function ConsumerGroups({
  threshold,
  lagging,
  search,
}: {
  threshold: number
  lagging: boolean
  search: string
}) {
  const { data, error } = usePoll('consumer-groups', (signal) =>
    apiGet<ConsumerGroupRow[]>('/api/v1/consumer-groups', 'read', signal),
  )
  const needle = search.toLowerCase()
  const rows = (data ?? [])
    .filter((row) => needle === '' || groupLabel(row.name).toLowerCase().includes(needle))
    .filter((row) => !lagging || row.maxTimeLag > threshold)
    .sort(
      (a, b) => b.maxTimeLag - a.maxTimeLag || a.name.localeCompare(b.name) || a.queueName.localeCompare(b.queueName),
    )
  const over = (data ?? []).filter((row) => row.maxTimeLag > threshold).length
  const go = (next: { threshold?: number; lagging?: boolean; search?: string }, replace = true) =>
    navigate(hrefOf({ view: 'consumer-groups', threshold, lagging, search, ...next }), { replace })

  return (
    <>
      <div className="page-title">
        <h1>Consumer groups</h1>
        <div className="filters">
          <div className="filter">
            <label htmlFor="group-filter">Filter by name</label>
            <input
              id="group-filter"
              type="search"
              value={search}
              onChange={(event) => go({ search: event.target.value })}
            />
          </div>
          <LagThreshold threshold={threshold} onChange={(next) => go({ threshold: next })} />
          <div className="filter">
            <input
              id="lagging-only"
              type="checkbox"
              checked={lagging}
              onChange={(event) => go({ lagging: event.target.checked }, false)}
            />
            <label htmlFor="lagging-only">Only over the threshold</label>
          </div>
        </div>
      </div>
      <ErrorNote error={error} />
      {data !== undefined && (
        <>
          <p className="note" role="status">
            {formatCount(over)} of {formatCount(data.length)} group and queue pairs have an unsettled message older than{' '}
            {formatDuration(threshold)}.
          </p>
          <DataTable
            className="card"
            caption="Consumer groups by the age of their oldest unsettled message"
            columns={columns(threshold)}
            rows={rows}
            rowKey={(row) => `${row.name}\n${row.queueName}`}
          />
          {rows.length === 0 && (
            <p>{data.length === 0 ? 'No consumer groups yet.' : 'No group matches the filters.'}</p>
          )}
        </>
      )}
    </>
  )
}
