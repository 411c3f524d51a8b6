/**
 * One queue, fetched together once per tick: its counters, partitions and options (GET
 * /api/v1/resources/queues/:queue), its push/pop/ack rates over the last hour (GET
 * /api/v1/analytics/queue-ops?queue=) and the consumer groups reading it with their lag (GET
 * /api/v1/consumer-groups, filtered here). The configuration card edits the options merge-safely; the
 * queue's messages, traces and dead letters are one link away; an admin can delete the queue.
 */
import { useState } from 'react'
import type {
  ConsumerGroupRow,
  PartitionDetail,
  QueueDeleteAnswer,
  QueueDetailAnswer,
  QueueOpsAnswer,
  ThroughputPoint,
} from '../../../src/wire/index.js'
import { apiDelete, apiGet } from '../api'
import { mayAdminister, mayWrite, useAuth } from '../auth'
import { ConfirmDialog } from '../components/ConfirmDialog'
import { DataTable, type Column } from '../components/DataTable'
import { ErrorNote } from '../components/ErrorNote'
import { Link } from '../components/Link'
import { QueueConfigCard } from '../components/QueueConfigCard'
import { ThroughputChart } from '../components/ThroughputChart'
import { formatCount, formatDuration } from '../format'
import { formatPace } from '../pace'
import { DEFAULT_LAG_THRESHOLD_S, hrefOf, navigate } from '../router'
import { useTheme } from '../theme'
import { usePoll } from '../use-poll'
import { groupLabel } from './ConsumerGroups'

const COUNTERS = ['total', 'pending', 'processing', 'completed', 'failed', 'deadLetter'] as const
const LABELS: Record<(typeof COUNTERS)[number], string> = {
  total: 'Total',
  pending: 'Pending',
  processing: 'Processing',
  completed: 'Completed',
  failed: 'Failed',
  deadLetter: 'Dead letter',
}

const PARTITION_COLUMNS: Column<PartitionDetail>[] = [
  { key: 'name', header: 'Partition', cell: (partition) => partition.name },
  ...COUNTERS.map((counter) => ({
    key: counter,
    header: LABELS[counter],
    numeric: true,
    cell: (partition: PartitionDetail) => formatCount(partition.stats[counter]),
  })),
]

/** A group reading the queue, as one line (a list, not a table: the page's one table is the partitions'). */
function GroupLine({ row }: { row: ConsumerGroupRow }) {
  return (
    <li>
      <Link href={hrefOf({ view: 'consumer-group', name: row.name, threshold: DEFAULT_LAG_THRESHOLD_S })}>
        {groupLabel(row.name)}
      </Link>
      : {formatCount(row.totalLag)} unsettled
      {row.maxTimeLag > 0 && `, the oldest ${formatDuration(row.maxTimeLag)} old`} · {row.state}
    </li>
  )
}

const HOUR_MS = 3_600_000

interface QueueData {
  detail: QueueDetailAnswer
  ops: QueueOpsAnswer
  groups: ConsumerGroupRow[]
}

async function fetchQueue(name: string, signal: AbortSignal): Promise<QueueData> {
  const to = new Date()
  const range = new URLSearchParams({
    from: new Date(to.getTime() - HOUR_MS).toISOString(),
    to: to.toISOString(),
    queue: name,
  })
  const [detail, ops, groups] = await Promise.all([
    apiGet<QueueDetailAnswer>(`/api/v1/resources/queues/${encodeURIComponent(name)}`, 'read', signal),
    apiGet<QueueOpsAnswer>(`/api/v1/analytics/queue-ops?${range.toString()}`, 'read', signal),
    apiGet<ConsumerGroupRow[]>('/api/v1/consumer-groups', 'read', signal),
  ])
  return { detail, ops, groups: groups.filter((group) => group.queueName === name) }
}

/**
 * The queue's buckets as the rate chart reads them (per second over each bucket), every bucket of the window
 * present: a minute without traffic is a 0, not a line drawn across it (and one bucket alone still spans the
 * window rather than a scale of its own).
 */
function ratePoints(ops: QueueOpsAnswer): ThroughputPoint[] {
  const bucketMs = ops.bucketMinutes * 60_000
  const seconds = bucketMs / 1000
  const byTime = new Map(ops.series.map((bucket) => [Date.parse(bucket.bucketTime), bucket]))
  const points: ThroughputPoint[] = []
  const first = Math.floor(Date.parse(ops.timeRange.from) / bucketMs) * bucketMs
  for (let time = first; time <= Date.parse(ops.timeRange.to); time += bucketMs) {
    const bucket = byTime.get(time)
    const [push, pop, ack] = [bucket?.push ?? 0, bucket?.pop ?? 0, bucket?.ack ?? 0]
    points.push({
      timestamp: new Date(time).toISOString(),
      ingested: push,
      processed: ack,
      popMessages: pop,
      ingestedPerSecond: push / seconds,
      processedPerSecond: ack / seconds,
      popPerSecond: pop / seconds,
      avgLagMs: 0,
      maxLagMs: 0,
    })
  }
  return points
}

export function Queue({ name }: { name: string }) {
  const auth = useAuth()
  const theme = useTheme()
  const poll = usePoll(`queue:${name}`, (signal) => fetchQueue(name, signal))
  const { data, error } = poll
  const [deleting, setDeleting] = useState(false)
  const admin = mayAdminister(auth.token) && !auth.required
  const writer = mayWrite(auth.token) && !auth.required
  const query = `?queue=${encodeURIComponent(name)}`
  const totals = data?.ops.queues.find((row) => row.queueName === name)
  const windowSeconds = HOUR_MS / 1000

  return (
    <>
      <p>
        <Link href="/queues">← All queues</Link>
      </p>
      <div className="page-title">
        <h1>Queue {name}</h1>
        {admin && data !== undefined && (
          <button type="button" className="danger" onClick={() => setDeleting(true)}>
            Delete queue
          </button>
        )}
      </div>
      <nav aria-label={`More about ${name}`} className="link-row">
        <Link href={`/messages${query}`}>Messages</Link>
        {/* Trace names span queues and the API lists them for all queues only (docs/dashboard.md, "What it shows"). */}
        <Link href="/traces">Traces (all queues)</Link>
        <Link href={`/dlq${query}`}>Dead letters</Link>
      </nav>
      <ErrorNote error={error} />
      {data !== undefined && (
        <>
          <dl className="tiles">
            {COUNTERS.map((counter) => (
              <div className="tile" key={counter}>
                <dt>{LABELS[counter]}</dt>
                <dd>{formatCount(data.detail.totals[counter])}</dd>
              </div>
            ))}
          </dl>
          <section aria-labelledby="rates-title" className="card">
            <h2 id="rates-title">Rates, last hour</h2>
            <dl className="tiles compact">
              {(['push', 'pop', 'ack', 'failed', 'dlq'] as const).map((op) => (
                <div className="tile" key={op}>
                  <dt>{op === 'dlq' ? 'dead-lettered' : op}</dt>
                  <dd>
                    {formatCount(totals?.[op] ?? 0)}
                    <span className="unit"> · {formatPace(totals?.[op] ?? 0, windowSeconds)}</span>
                  </dd>
                </div>
              ))}
            </dl>
            <ThroughputChart
              points={ratePoints(data.ops)}
              theme={theme}
              label={`Push, pop and ack rates of ${name} per ${data.ops.bucketMinutes}-minute bucket over the last hour: ${formatCount(totals?.push ?? 0)} pushed, ${formatCount(totals?.pop ?? 0)} popped, ${formatCount(totals?.ack ?? 0)} acked`}
            />
          </section>
          <section aria-labelledby="groups-title" className="card">
            <h2 id="groups-title">Consumer groups ({data.groups.length})</h2>
            {data.groups.length === 0 ? (
              <p>No group has read this queue yet.</p>
            ) : (
              <ul className="plain-list">
                {data.groups.map((row) => (
                  <GroupLine key={row.name} row={row} />
                ))}
              </ul>
            )}
          </section>
          <QueueConfigCard
            name={name}
            stored={{ namespace: data.detail.namespace, task: data.detail.task, options: data.detail.options }}
            canEdit={writer}
            onSaved={() => poll.reload()}
          />
          <section aria-labelledby="partitions-title" className="card">
            <h2 id="partitions-title">Partitions ({data.detail.partitions.length})</h2>
            <DataTable columns={PARTITION_COLUMNS} rows={data.detail.partitions} rowKey={(partition) => partition.id} />
          </section>
        </>
      )}
      <ConfirmDialog
        open={deleting}
        title={`Delete queue ${name}?`}
        body="The queue and everything under it are deleted: partitions, messages, consumer-group cursors, leases, dead letters, traces and subscriptions. Pops waiting on it are answered empty. This cannot be undone."
        confirmLabel="Delete queue"
        onConfirm={async () => {
          await apiDelete<QueueDeleteAnswer>(`/api/v1/resources/queues/${encodeURIComponent(name)}`, 'admin')
          navigate('/queues')
        }}
        onClose={() => setDeleting(false)}
      />
    </>
  )
}
