/**
 * Messages (GET /api/v1/messages, one request per tick): filtered by queue, partition, status, group and
 * time, newest first, 50 a page. A message's transaction id opens the drawer (MessageDrawer.tsx). Every filter,
 * the page and the open message are in the URL (inspect-routes.ts).
 */
import type { MessageListAnswer, MessageListItem } from '../../../src/wire/index.js'
import { apiGet } from '../api'
import { DataTable, type Column } from '../components/DataTable'
import { ErrorNote } from '../components/ErrorNote'
import { SelectFilter, SinceFilter, TextFilter } from '../components/FilterFields'
import { Link } from '../components/Link'
import { Pager } from '../components/Pager'
import {
  MESSAGE_STATUSES,
  messagesHref,
  sinceFrom,
  type MessagesRoute,
  type MessageStatusFilter,
} from '../inspect-routes'
import { navigate } from '../router'
import { formatWhen, statusText } from '../inspect-format'
import { usePoll } from '../use-poll'
import { MessageDrawer } from './MessageDrawer'
import '../inspect.css'

/** Rows per page of the list. */
const PAGE_SIZE = 50

const STATUS_LABELS: Record<MessageStatusFilter, string> = {
  '': 'Any status',
  pending: 'Pending',
  processing: 'Processing',
  completed: 'Completed',
  dead_letter: 'Dead letter',
}

/** The list's request: the route's filters, the time bound from now. */
function listPath(route: MessagesRoute): string {
  const query = new URLSearchParams({ limit: String(PAGE_SIZE), offset: String((route.page - 1) * PAGE_SIZE) })
  if (route.queue !== '') query.set('queue', route.queue)
  if (route.partition !== '') query.set('partition', route.partition)
  if (route.status !== '') query.set('status', route.status)
  if (route.group !== '') query.set('consumerGroup', route.group)
  // 'all' reaches back to the epoch: without `from` the broker shows the last hour.
  query.set('from', sinceFrom(route.since) ?? new Date(0).toISOString())
  return `/api/v1/messages?${query.toString()}`
}

export function Messages({ route }: { route: MessagesRoute }) {
  const filterKey = messagesHref({ ...route, open: undefined })
  const poll = usePoll(`messages:${filterKey}`, (signal) => apiGet<MessageListAnswer>(listPath(route), 'read', signal))
  const { data, error } = poll
  // A filter change starts again at page 1 and keeps the drawer open.
  const setFilter = (change: Partial<MessagesRoute>) =>
    navigate(messagesHref({ ...route, page: 1, ...change }), { replace: true })

  const columns: Column<MessageListItem>[] = [
    {
      key: 'tx',
      header: 'Transaction',
      cell: (m) => (
        <Link
          href={messagesHref({ ...route, open: { partitionId: m.partitionId, transactionId: m.transactionId } })}
          aria-current={
            route.open?.partitionId === m.partitionId && route.open.transactionId === m.transactionId
              ? 'true'
              : undefined
          }
        >
          {m.transactionId}
        </Link>
      ),
    },
    { key: 'place', header: 'Queue / partition', cell: (m) => m.queuePath },
    {
      key: 'status',
      header: 'Status',
      cell: (m) => <span className={`status ${m.status}`}>{statusText(m.status)}</span>,
    },
    { key: 'created', header: 'Created', cell: (m) => formatWhen(m.createdAt) },
    { key: 'lease', header: 'Lease until', cell: (m) => formatWhen(m.leaseExpiresAt) },
  ]

  return (
    <>
      <h1>Messages</h1>
      <form className="filters" aria-label="Filter messages" onSubmit={(event) => event.preventDefault()}>
        <TextFilter label="Queue" value={route.queue} onChange={(queue) => setFilter({ queue })} />
        <TextFilter label="Partition" value={route.partition} onChange={(partition) => setFilter({ partition })} />
        <SelectFilter
          label="Status"
          value={route.status}
          options={MESSAGE_STATUSES.map((status) => ({ value: status, label: STATUS_LABELS[status] }))}
          onChange={(status) => setFilter({ status })}
        />
        <TextFilter label="Consumer group" value={route.group} onChange={(group) => setFilter({ group })} />
        <SinceFilter label="Created in the last" value={route.since} onChange={(since) => setFilter({ since })} />
      </form>
      <ErrorNote error={error} />
      {data !== undefined && (
        <>
          <p className="note">
            Status for {route.group === '' ? 'queue mode' : `group ${route.group}`}; consumption: {data.mode.type}.
            Newest first.
          </p>
          <DataTable
            className="card"
            caption="Messages, newest first"
            columns={columns}
            rows={data.messages}
            rowKey={(m) => `${m.partitionId}/${m.transactionId}`}
          />
          {data.messages.length === 0 && <p>No message matches these filters.</p>}
          <Pager
            page={route.page}
            hasNext={data.messages.length === PAGE_SIZE}
            hrefOfPage={(page) => messagesHref({ ...route, page })}
          />
        </>
      )}
      {route.open !== undefined && (
        <MessageDrawer
          key={`${route.open.partitionId}/${route.open.transactionId}`}
          message={route.open}
          group={route.group}
          closeHref={messagesHref({ ...route, open: undefined })}
          onChanged={() => poll.reload()}
        />
      )}
    </>
  )
}
