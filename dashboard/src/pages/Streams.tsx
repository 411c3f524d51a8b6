/**
 * The streams page (GET /streams/v1/queries): every registered stream query, where it reads and writes, its
 * state rows, and how its group reads the source: consumed, lag, and when it last consumed, from which the
 * page names its state.
 */
import type { StreamQueriesAnswer, StreamQueryRow } from '../../../src/wire/index.js'
import { apiGet } from '../api'
import { DataTable, type Column } from '../components/DataTable'
import { ErrorNote } from '../components/ErrorNote'
import { Link } from '../components/Link'
import { formatCount, formatDuration } from '../format'
import { formatAgo } from '../format-units'
import { hrefOf } from '../router'
import { usePoll } from '../use-poll'
import '../insights.css'

/** A query that consumed within this long is running. */
const ACTIVE_WITHIN_MS = 5 * 60_000

/** What the figures say of a query, in a word. */
export function streamState(query: StreamQueryRow, now = Date.now()): { label: string; className: string } {
  if (query.last_consumed_at === null) return { label: 'never ran', className: 'state' }
  if (now - Date.parse(query.last_consumed_at) <= ACTIVE_WITHIN_MS)
    return { label: 'running', className: 'state state-good' }
  if (query.lag_messages > 0) return { label: 'stalled', className: 'state state-bad' }
  return { label: 'idle', className: 'state' }
}

const queueLink = (name: string) => <Link href={hrefOf({ view: 'queue', name })}>{name}</Link>

const COLUMNS: Column<StreamQueryRow>[] = [
  { key: 'name', header: 'Query', cell: (q) => q.name },
  {
    key: 'state',
    header: 'State',
    cell: (q) => {
      const state = streamState(q)
      return <span className={state.className}>{state.label}</span>
    },
  },
  { key: 'source', header: 'Source', cell: (q) => queueLink(q.source_queue) },
  { key: 'sink', header: 'Sink', cell: (q) => (q.sink_queue === null ? '–' : queueLink(q.sink_queue)) },
  { key: 'consumed', header: 'Consumed', numeric: true, cell: (q) => formatCount(q.consumed) },
  { key: 'lag', header: 'Lag', numeric: true, cell: (q) => formatCount(q.lag_messages) },
  {
    key: 'age',
    header: 'Oldest unread',
    numeric: true,
    cell: (q) => (q.lag_messages === 0 ? '–' : formatDuration(q.lag_seconds)),
  },
  { key: 'last', header: 'Last consumed', cell: (q) => formatAgo(q.last_consumed_at) },
  { key: 'keys', header: 'State keys', numeric: true, cell: (q) => formatCount(q.state_keys) },
  { key: 'partitions', header: 'State partitions', numeric: true, cell: (q) => formatCount(q.state_partitions) },
  { key: 'hash', header: 'Config hash', cell: (q) => <code>{q.config_hash.slice(0, 12)}</code> },
]

export function Streams() {
  const { data, error } = usePoll('streams', (signal) =>
    apiGet<StreamQueriesAnswer>('/streams/v1/queries', 'read', signal),
  )
  return (
    <>
      <h1>Streams</h1>
      <ErrorNote error={error} />
      {data !== undefined &&
        (data.queries.length === 0 ? (
          <p>
            No stream query is registered. The streaming SDKs register one when a stream starts (
            <code>Stream.run({'{ queryId }'})</code>).
          </p>
        ) : (
          <>
            <DataTable
              className="card"
              caption="Registered stream queries"
              columns={COLUMNS}
              rows={data.queries}
              rowKey={(q) => q.query_id}
            />
            <p className="note">
              Each query reads its source as the consumer group <code>streams.&lt;name&gt;</code>; lag is as of the last
              stats refresh. A query is running when it consumed in the last 5 minutes, stalled when it has lag but did
              not.
            </p>
          </>
        ))}
    </>
  )
}
