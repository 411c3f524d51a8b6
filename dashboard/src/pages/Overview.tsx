/**
 * The overview (GET /api/v1/status over the window, and GET /api/v1/resources/queues for the top queues by
 * pending, fetched together once per tick): totals, the push/pop/ack rates as a chart, the top queues.
 * The window (1h, 6h, 24h) is in the URL.
 */
import type { QueueListAnswer, QueueRow, StatusAnswer } from '../../../src/wire/index.js'
import { apiGet } from '../api'
import { DataTable, type Column } from '../components/DataTable'
import { ErrorNote } from '../components/ErrorNote'
import { Link } from '../components/Link'
import { Tile, WindowNav } from '../components/Tiles'
import { ThroughputChart } from '../components/ThroughputChart'
import { formatCount, formatRate } from '../format'
import { hrefOf, type TimeWindow } from '../router'
import { useTheme } from '../theme'
import { usePoll } from '../use-poll'

const WINDOW_MS: Record<TimeWindow, number> = { '1h': 3_600_000, '6h': 21_600_000, '24h': 86_400_000 }
const TOP_QUEUES = 10

const TOP_COLUMNS: Column<QueueRow>[] = [
  { key: 'name', header: 'Queue', cell: (q) => <Link href={hrefOf({ view: 'queue', name: q.name })}>{q.name}</Link> },
  { key: 'pending', header: 'Pending', numeric: true, cell: (q) => formatCount(q.messages.pending) },
  { key: 'processing', header: 'Processing', numeric: true, cell: (q) => formatCount(q.messages.processing) },
  { key: 'partitions', header: 'Partitions', numeric: true, cell: (q) => formatCount(q.partitions) },
]

interface OverviewData {
  status: StatusAnswer
  queues: QueueListAnswer
}

async function fetchOverview(span: TimeWindow, signal: AbortSignal): Promise<OverviewData> {
  const to = new Date()
  const from = new Date(to.getTime() - WINDOW_MS[span])
  const query = new URLSearchParams({ from: from.toISOString(), to: to.toISOString() })
  const [status, queues] = await Promise.all([
    apiGet<StatusAnswer>(`/api/v1/status?${query.toString()}`, 'read', signal),
    apiGet<QueueListAnswer>('/api/v1/resources/queues', 'read', signal),
  ])
  return { status, queues }
}

export function Overview({ span }: { span: TimeWindow }) {
  const theme = useTheme()
  const { data, error } = usePoll(`overview:${span}`, (signal) => fetchOverview(span, signal))
  const status = data?.status
  const last = status?.throughput.at(-1)
  const top = [...(data?.queues.queues ?? [])]
    .filter((queue) => queue.messages.pending > 0)
    .sort((a, b) => b.messages.pending - a.messages.pending || a.name.localeCompare(b.name))
    .slice(0, TOP_QUEUES)

  return (
    <>
      <div className="page-title">
        <h1>Overview</h1>
        <WindowNav current={span} hrefOf={(window) => hrefOf({ view: 'overview', window })} />
      </div>
      <ErrorNote error={error} />
      {status !== undefined && (
        <>
          <section aria-labelledby="totals-title">
            <h2 id="totals-title">Messages</h2>
            <dl className="tiles">
              <Tile label="Total" value={formatCount(status.messages.total)} />
              <Tile label="Pending" value={formatCount(status.messages.pending)} />
              <Tile label="Processing" value={formatCount(status.messages.processing)} />
              <Tile label="Completed" value={formatCount(status.messages.completed)} />
              <Tile label="Failed" value={formatCount(status.messages.failed)} />
              <Tile label="Dead letter" value={formatCount(status.messages.deadLetter)} />
              <Tile label="Active leases" value={formatCount(status.leases.active)} />
              <Tile label="Queues" value={formatCount(data?.queues.queues.length ?? 0)} />
            </dl>
          </section>
          <section aria-labelledby="throughput-title" className="card">
            <h2 id="throughput-title">Throughput, last {span}</h2>
            <ThroughputChart
              points={status.throughput}
              theme={theme}
              label={
                last === undefined
                  ? `No throughput recorded in the last ${span}`
                  : `Push, pop and ack rates per ${status.bucketMinutes}-minute bucket over the last ${span}; latest: push ${formatRate(last.ingestedPerSecond)}, pop ${formatRate(last.popPerSecond)}, ack ${formatRate(last.processedPerSecond)}`
              }
            />
            <p className="note">
              Requests since this replica started: push {formatCount(status.messages.requests.push)}, pop{' '}
              {formatCount(status.messages.requests.pop)}, ack {formatCount(status.messages.requests.ack)}.
              {status.statsAge !== null && ` Counters are ${Math.round(status.statsAge)} s old.`}
            </p>
          </section>
          <section aria-labelledby="top-title" className="card">
            <h2 id="top-title">Top queues by pending</h2>
            {top.length === 0 ? (
              <p>No queue has pending messages.</p>
            ) : (
              <DataTable columns={TOP_COLUMNS} rows={top} rowKey={(queue) => queue.id} />
            )}
          </section>
        </>
      )}
    </>
  )
}
