/**
 * Traces (GET /api/v1/traces/names, and GET /api/v1/traces/by-name/:name for the name searched, fetched
 * together once per tick): the trace names recorded, narrowed by what is typed, and the timeline of every
 * event of the trace named, each linked to its message. The name is in the URL.
 */
import type { NamedTraceEvent, NamedTracesAnswer, TraceNamesAnswer } from '../../../src/wire/index.js'
import { apiGet } from '../api'
import { DataTable } from '../components/DataTable'
import { ErrorNote } from '../components/ErrorNote'
import { TextFilter } from '../components/FilterFields'
import { Link } from '../components/Link'
import { TraceTimeline } from '../components/TraceTimeline'
import { formatCount } from '../format'
import { formatWhen } from '../inspect-format'
import { messagesHref, tracesHref } from '../inspect-routes'
import { navigate } from '../router'
import { usePoll } from '../use-poll'
import '../inspect.css'

/** The most names and events one answer holds (docs/http-api.md, "Read traces"). */
const MOST = 1000

interface TracesData {
  names: TraceNamesAnswer
  trace: NamedTracesAnswer | undefined
}

async function fetchTraces(name: string, signal: AbortSignal): Promise<TracesData> {
  const [names, trace] = await Promise.all([
    apiGet<TraceNamesAnswer>(`/api/v1/traces/names?limit=${MOST}`, 'read', signal),
    name === ''
      ? Promise.resolve(undefined)
      : apiGet<NamedTracesAnswer>(`/api/v1/traces/by-name/${encodeURIComponent(name)}?limit=${MOST}`, 'read', signal),
  ])
  return { names, trace }
}

function messageLink(event: NamedTraceEvent) {
  const href = messagesHref({
    queue: event.queue_name,
    partition: '',
    status: '',
    group: '',
    since: 'all',
    page: 1,
    open: { partitionId: event.partition_id, transactionId: event.transaction_id },
  })
  return (
    <>
      {' '}
      on{' '}
      <Link href={href}>
        {event.queue_name}/{event.partition_name} · {event.transaction_id}
      </Link>
    </>
  )
}

export function Traces({ name }: { name: string }) {
  const { data, error } = usePoll(`traces:${name}`, (signal) => fetchTraces(name, signal))
  const wanted = name.trim().toLowerCase()
  const names = (data?.names.trace_names ?? []).filter((row) => row.trace_name.toLowerCase().includes(wanted))
  const events = data?.trace?.traces ?? []
  const messages = new Set(events.map((event) => `${event.partition_id}/${event.transaction_id}`)).size

  return (
    <>
      <h1>Traces</h1>
      <form className="filters" role="search" aria-label="Search traces" onSubmit={(event) => event.preventDefault()}>
        <TextFilter
          label="Trace name"
          value={name}
          onChange={(next) => navigate(tracesHref({ name: next }), { replace: true })}
        />
      </form>
      <ErrorNote error={error} />
      {data !== undefined && name !== '' && (
        <section className="card" aria-labelledby="timeline-title">
          <h2 id="timeline-title">Timeline of {name}</h2>
          {events.length === 0 ? (
            <p>No event carries the trace name “{name}”.</p>
          ) : (
            <>
              <p className="note">
                {formatCount(data.trace?.total ?? events.length)} events on {formatCount(messages)} messages, oldest
                first
                {(data.trace?.total ?? 0) > events.length ? `; the newest ${formatCount(events.length)} shown` : ''}.
              </p>
              <TraceTimeline events={events} place={messageLink} label={`Events of the trace ${name}`} />
            </>
          )}
        </section>
      )}
      {data !== undefined && (
        <section className="card" aria-labelledby="names-title">
          <h2 id="names-title">Trace names{wanted === '' ? '' : ` containing “${name.trim()}”`}</h2>
          {names.length === 0 ? (
            <p>{data.names.trace_names.length === 0 ? 'No trace recorded yet.' : 'No trace name matches.'}</p>
          ) : (
            <DataTable
              columns={[
                {
                  key: 'name',
                  header: 'Name',
                  cell: (row) => (
                    <Link
                      href={tracesHref({ name: row.trace_name })}
                      aria-current={row.trace_name === name ? 'true' : undefined}
                    >
                      {row.trace_name}
                    </Link>
                  ),
                },
                { key: 'events', header: 'Events', numeric: true, cell: (row) => formatCount(row.trace_count) },
                { key: 'messages', header: 'Messages', numeric: true, cell: (row) => formatCount(row.message_count) },
                { key: 'last', header: 'Last seen', cell: (row) => formatWhen(row.last_seen) },
              ]}
              rows={names}
              rowKey={(row) => row.trace_name}
            />
          )}
        </section>
      )}
    </>
  )
}
