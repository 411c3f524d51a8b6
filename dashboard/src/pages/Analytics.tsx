/**
 * Analytics over the window in the URL (1h, 6h, 24h): the message flow (push, pop, ack, failed, DLQ per
 * bucket, summed over queues) as a chart, the status distribution of the stored messages as bars, the
 * busiest queues of the window, and the namespaces and tasks. One tick reads GET
 * /api/v1/analytics/queue-ops, /api/v1/status, /api/v1/resources/namespaces and /api/v1/resources/tasks
 * together.
 */
import type { NamespacesAnswer, OpCounts, QueueOpsAnswer, StatusAnswer, TasksAnswer } from '../../../src/wire/index.js'
import { apiGet } from '../api'
import { BarList } from '../components/BarList'
import { DataTable, type Column } from '../components/DataTable'
import { ErrorNote } from '../components/ErrorNote'
import { Link } from '../components/Link'
import { TimeSeriesChart } from '../components/TimeSeriesChart'
import { WindowPicker } from '../components/WindowPicker'
import { formatCount } from '../format'
import { hrefOf, type TimeWindow } from '../router'
import { useTheme } from '../theme'
import { WINDOW_MS, windowQuery } from '../time-window'
import { usePoll } from '../use-poll'
import '../insights.css'

const TOP = 10
const FLOW = [
  { key: 'push', label: 'pushed', color: '--chart-1' },
  { key: 'pop', label: 'popped', color: '--chart-2' },
  { key: 'ack', label: 'acked', color: '--chart-3' },
  { key: 'failed', label: 'failed', color: '--chart-4' },
  { key: 'dlq', label: 'to DLQ', color: '--chart-5' },
] as const

type Grouped = NamespacesAnswer['namespaces'][number] | TasksAnswer['tasks'][number]

interface AnalyticsData {
  ops: QueueOpsAnswer
  status: StatusAnswer
  namespaces: NamespacesAnswer
  tasks: TasksAnswer
}

async function fetchAnalytics(span: TimeWindow, signal: AbortSignal): Promise<AnalyticsData> {
  const range = windowQuery(span)
  const [ops, status, namespaces, tasks] = await Promise.all([
    apiGet<QueueOpsAnswer>(`/api/v1/analytics/queue-ops?${range}`, 'read', signal),
    apiGet<StatusAnswer>(`/api/v1/status?${range}`, 'read', signal),
    apiGet<NamespacesAnswer>('/api/v1/resources/namespaces', 'read', signal),
    apiGet<TasksAnswer>('/api/v1/resources/tasks', 'read', signal),
  ])
  return { ops, status, namespaces, tasks }
}

/** The series of every queue summed per bucket, oldest first. */
function flowOverTime(ops: QueueOpsAnswer): {
  times: number[]
  totals: Record<(typeof FLOW)[number]['key'], number[]>
} {
  const buckets = new Map<string, OpCounts>()
  for (const point of ops.series) {
    const sum = buckets.get(point.bucketTime) ?? { queueName: '', push: 0, pop: 0, ack: 0, failed: 0, dlq: 0 }
    for (const { key } of FLOW) sum[key] += point[key]
    buckets.set(point.bucketTime, sum)
  }
  const ordered = [...buckets.entries()].sort(([a], [b]) => a.localeCompare(b))
  return {
    times: ordered.map(([time]) => Date.parse(time) / 1000),
    totals: Object.fromEntries(FLOW.map(({ key }) => [key, ordered.map(([, sum]) => sum[key])])) as Record<
      (typeof FLOW)[number]['key'],
      number[]
    >,
  }
}

const QUEUE_COLUMNS: Column<OpCounts>[] = [
  {
    key: 'queue',
    header: 'Queue',
    cell: (q) => <Link href={hrefOf({ view: 'queue', name: q.queueName })}>{q.queueName}</Link>,
  },
  ...FLOW.map(({ key, label }) => ({
    key,
    header: label[0]!.toUpperCase() + label.slice(1),
    numeric: true,
    cell: (q: OpCounts) => formatCount(q[key]),
  })),
]

function groupColumns(title: string, name: (row: Grouped) => string): Column<Grouped>[] {
  return [
    { key: 'name', header: title, cell: name },
    { key: 'queues', header: 'Queues', numeric: true, cell: (row) => formatCount(row.queues) },
    { key: 'partitions', header: 'Partitions', numeric: true, cell: (row) => formatCount(row.partitions) },
    { key: 'total', header: 'Messages', numeric: true, cell: (row) => formatCount(row.messages.total) },
    { key: 'pending', header: 'Pending', numeric: true, cell: (row) => formatCount(row.messages.pending) },
  ]
}

const NAMESPACE_COLUMNS = groupColumns('Namespace', (row) => ('namespace' in row ? row.namespace : ''))
const TASK_COLUMNS = groupColumns('Task', (row) => ('task' in row ? row.task : ''))

const byMessages = (a: Grouped, b: Grouped) => b.messages.total - a.messages.total

export function Analytics({ span }: { span: TimeWindow }) {
  const theme = useTheme()
  const { data, error } = usePoll(`analytics:${span}`, (signal) => fetchAnalytics(span, signal))
  const flow = data === undefined ? undefined : flowOverTime(data.ops)
  const windowTotals = FLOW.map(
    ({ key, label }) => `${label} ${formatCount(flow?.totals[key].reduce((a, b) => a + b, 0) ?? 0)}`,
  )
  const messages = data?.status.messages
  const topQueues = [...(data?.ops.queues ?? [])]
    .sort((a, b) => b.push + b.pop + b.ack - (a.push + a.pop + a.ack) || a.queueName.localeCompare(b.queueName))
    .slice(0, TOP)

  return (
    <>
      <div className="page-title">
        <h1>Analytics</h1>
        <WindowPicker current={span} hrefFor={(option) => hrefOf({ view: 'analytics', window: option })} />
      </div>
      <ErrorNote error={error} />
      {data !== undefined && flow !== undefined && messages !== undefined && (
        <>
          <section aria-labelledby="flow-title" className="card">
            <h2 id="flow-title">Message flow, last {span}</h2>
            <TimeSeriesChart
              times={flow.times}
              series={FLOW.map(({ key, label, color }) => ({ label, color, values: flow.totals[key] }))}
              theme={theme}
              format={formatCount}
              integer
              windowMs={WINDOW_MS[span]}
              label={
                flow.times.length === 0
                  ? `No messages moved in the last ${span}`
                  : `Messages per ${data.ops.bucketMinutes}-minute bucket over the last ${span}; in total ${windowTotals.join(', ')}`
              }
            />
            <p className="note">In the window: {windowTotals.join(' · ')}.</p>
          </section>
          <div className="grid-2">
            <section aria-labelledby="distribution-title" className="card">
              <h2 id="distribution-title">Status distribution</h2>
              <BarList
                label="Stored messages by status"
                format={formatCount}
                items={[
                  { label: 'Pending', value: messages.pending, color: '--chart-1' },
                  { label: 'Processing', value: messages.processing, color: '--chart-2' },
                  { label: 'Completed', value: messages.completed, color: '--chart-3' },
                  { label: 'Failed', value: messages.failed, color: '--chart-4' },
                  { label: 'Dead letter', value: messages.deadLetter, color: '--chart-5' },
                ]}
              />
              <p className="note">
                Of {formatCount(messages.total)} stored messages
                {data.status.statsAge !== null && `, counted ${Math.round(data.status.statsAge)} s ago`}.
              </p>
            </section>
            <section aria-labelledby="top-queues-title" className="card">
              <h2 id="top-queues-title">Top queues, last {span}</h2>
              {topQueues.length === 0 ? (
                <p>No queue had traffic in the window.</p>
              ) : (
                <DataTable
                  caption="The busiest queues of the window by pushed, popped and acked messages"
                  columns={QUEUE_COLUMNS}
                  rows={topQueues}
                  rowKey={(q) => q.queueName}
                />
              )}
            </section>
          </div>
          <div className="grid-2">
            <GroupedTable
              id="namespaces"
              title="Namespaces"
              none="No queue has a namespace."
              columns={NAMESPACE_COLUMNS}
              rows={data.namespaces.namespaces}
            />
            <GroupedTable
              id="tasks"
              title="Tasks"
              none="No queue has a task."
              columns={TASK_COLUMNS}
              rows={data.tasks.tasks}
            />
          </div>
        </>
      )}
    </>
  )
}

/** The namespaces or the tasks, the ten with the most messages. */
function GroupedTable(props: { id: string; title: string; none: string; columns: Column<Grouped>[]; rows: Grouped[] }) {
  return (
    <section aria-labelledby={`${props.id}-title`} className="card">
      <h2 id={`${props.id}-title`}>{props.title}</h2>
      {props.rows.length === 0 ? (
        <p>{props.none}</p>
      ) : (
        <DataTable
          columns={props.columns}
          rows={[...props.rows].sort(byMessages).slice(0, TOP)}
          rowKey={(row) => props.columns[0]!.cell(row) as string}
        />
      )}
    </section>
  )
}
