/**
 * The dead-letter queue (GET /api/v1/dlq for the list and its total, and GET /api/v1/status for the totals
 * and top errors, fetched together once per tick): filters by queue, partition, group and failure time, 50
 * entries a page, an entry in a drawer. Requeue one entry or every matching one, and purge every matching
 * one, each behind a confirmation, for a role that may write. Every filter, the page and the open entry
 * are in the URL.
 */
import { useState } from 'react'
import type { DlqAnswer, DlqMessage, StatusAnswer } from '../../../src/wire/index.js'
import { apiDelete, apiGet, apiPost, ApiError } from '../api'
import { mayWrite, useAuth } from '../auth'
import { collectDeadLetters, distinctMessages, runBulk, type BulkOutcome } from '../bulk'
import { ConfirmDialog } from '../components/ConfirmDialog'
import { DataTable, type Column } from '../components/DataTable'
import { Drawer } from '../components/Drawer'
import { ErrorNote } from '../components/ErrorNote'
import { SinceFilter, TextFilter } from '../components/FilterFields'
import { JsonView } from '../components/JsonView'
import { Link } from '../components/Link'
import { Pager } from '../components/Pager'
import { formatCount } from '../format'
import { formatWhen, groupText } from '../inspect-format'
import { dlqHref, messagesHref, sinceFrom, type DlqRoute, type MessageRef } from '../inspect-routes'
import { navigate } from '../router'
import { usePoll } from '../use-poll'
import { messagePath } from './MessageDrawer'
import '../inspect.css'

const PAGE_SIZE = 50

/** The listing's filters of the route (docs/http-api.md, "List the dead-letter queue"). */
function filterQuery(route: DlqRoute): URLSearchParams {
  const query = new URLSearchParams()
  if (route.queue !== '') query.set('queue', route.queue)
  if (route.partition !== '') query.set('partition', route.partition)
  if (route.group !== '') query.set('consumerGroup', route.group)
  const from = sinceFrom(route.since)
  if (from !== undefined) query.set('from', from)
  return query
}

interface DlqData {
  list: DlqAnswer
  status: StatusAnswer
}

async function fetchDlq(route: DlqRoute, signal: AbortSignal): Promise<DlqData> {
  const page = filterQuery(route)
  page.set('limit', String(PAGE_SIZE))
  page.set('offset', String((route.page - 1) * PAGE_SIZE))
  const status = route.queue === '' ? '/api/v1/status' : `/api/v1/status?queue=${encodeURIComponent(route.queue)}`
  const [list, summary] = await Promise.all([
    apiGet<DlqAnswer>(`/api/v1/dlq?${page.toString()}`, 'read', signal),
    apiGet<StatusAnswer>(status, 'read', signal),
  ])
  return { list, status: summary }
}

type Bulk = 'requeue' | 'purge'
type Asking = { kind: 'bulk'; bulk: Bulk } | { kind: 'entry'; action: 'requeue' | 'delete'; entry: DlqMessage }

const entryKey = (entry: MessageRef & { group: string }) => `${entry.partitionId}/${entry.transactionId}/${entry.group}`
const groupOf = (row: DlqMessage) => row.consumerGroup ?? ''

/** Requeues one entry for the group that gave up on it (docs/http-api.md, "Retry a message"). */
async function requeue(row: DlqMessage): Promise<void> {
  await apiPost(
    messagePath(row, '/retry'),
    'write',
    row.consumerGroup === null ? {} : { consumerGroup: row.consumerGroup },
  )
}

/** Deletes a message with its DLQ entries; "Message not found" counts as a failure of that one. */
async function deleteMessage(ref: MessageRef): Promise<void> {
  const answer = await apiDelete<{ success: boolean; message: string }>(messagePath(ref), 'write')
  if (!answer.success) throw new ApiError(`${ref.transactionId}: ${answer.message}`, 404)
}

function describeOutcome(verb: string, outcome: BulkOutcome, of: number): string {
  const failed = outcome.failures.length
  return `${verb} ${formatCount(outcome.done)} of ${formatCount(of)}${failed > 0 ? `; ${failed} failed: ${outcome.failures.slice(0, 3).join('; ')}` : ''}.`
}

export function Dlq({ route }: { route: DlqRoute }) {
  const auth = useAuth()
  const writer = mayWrite(auth.token) && !auth.required
  const listHref = dlqHref({ ...route, open: undefined })
  const poll = usePoll(`dlq:${listHref}`, (signal) => fetchDlq(route, signal))
  const { data, error } = poll
  const [asking, setAsking] = useState<Asking | undefined>()
  const [done, setDone] = useState<string | undefined>()
  const setFilter = (change: Partial<DlqRoute>) =>
    navigate(dlqHref({ ...route, page: 1, ...change }), { replace: true })

  const total = data?.list.total ?? 0
  const open = route.open
  const entry =
    open === undefined
      ? undefined
      : data?.list.messages.find((row) => entryKey({ ...row, group: groupOf(row) }) === entryKey(open))

  const runBulkAction = async (bulk: Bulk) => {
    const rows = await collectDeadLetters(filterQuery(route))
    if (bulk === 'requeue') setDone(describeOutcome('Requeued', await runBulk(rows, requeue), rows.length))
    else {
      const messages = distinctMessages(rows)
      setDone(describeOutcome('Purged: deleted', await runBulk(messages, deleteMessage), messages.length))
    }
    poll.reload()
  }
  const runEntryAction = async (action: 'requeue' | 'delete', row: DlqMessage) => {
    if (action === 'requeue') await requeue(row)
    else await deleteMessage(row)
    setDone(`${action === 'requeue' ? 'Requeued' : 'Deleted'} ${row.transactionId}.`)
    poll.reload()
    navigate(listHref)
  }

  const columns: Column<DlqMessage>[] = [
    {
      key: 'tx',
      header: 'Transaction',
      cell: (row) => (
        <Link
          href={dlqHref({
            ...route,
            open: { partitionId: row.partitionId, transactionId: row.transactionId, group: groupOf(row) },
          })}
        >
          {row.transactionId}
        </Link>
      ),
    },
    { key: 'place', header: 'Queue / partition', cell: (row) => `${row.queue}/${row.partition}` },
    { key: 'group', header: 'Group', cell: (row) => groupText(row.consumerGroup) },
    { key: 'error', header: 'Error', cell: (row) => <span className="clip">{row.errorMessage ?? '–'}</span> },
    { key: 'retries', header: 'Retries', numeric: true, cell: (row) => formatCount(row.retryCount) },
    { key: 'failed', header: 'Failed at', cell: (row) => formatWhen(row.failedAt) },
  ]

  const dialog = dialogText(asking, total, route)
  return (
    <>
      <h1>Dead-letter queue</h1>
      <form className="filters" aria-label="Filter the dead-letter queue" onSubmit={(event) => event.preventDefault()}>
        <TextFilter label="Queue" value={route.queue} onChange={(queue) => setFilter({ queue })} />
        <TextFilter label="Partition" value={route.partition} onChange={(partition) => setFilter({ partition })} />
        <TextFilter label="Consumer group" value={route.group} onChange={(group) => setFilter({ group })} />
        <SinceFilter label="Failed in the last" value={route.since} onChange={(since) => setFilter({ since })} />
      </form>
      <ErrorNote error={error} />
      {done !== undefined && (
        <p className="success" role="status">
          {done}
        </p>
      )}
      {data !== undefined && (
        <>
          <dl className="tiles">
            <div className="tile">
              <dt>Matching entries</dt>
              <dd>{formatCount(total)}</dd>
            </div>
            <div className="tile">
              <dt>{route.queue === '' ? 'All entries' : `Entries of ${route.queue}`}</dt>
              <dd>{formatCount(data.status.deadLetterQueue.totalMessages)}</dd>
            </div>
            <div className="tile">
              <dt>Affected partitions</dt>
              <dd>{formatCount(data.status.deadLetterQueue.affectedPartitions)}</dd>
            </div>
          </dl>
          <section className="card" aria-labelledby="top-errors-title">
            <h2 id="top-errors-title">Top errors{route.queue === '' ? '' : ` of ${route.queue}`}</h2>
            {data.status.deadLetterQueue.topErrors.length === 0 ? (
              <p>No dead letters.</p>
            ) : (
              <DataTable
                columns={[
                  { key: 'error', header: 'Error', cell: (row) => <span className="clip">{row.error}</span> },
                  { key: 'count', header: 'Entries', numeric: true, cell: (row) => formatCount(row.count) },
                ]}
                rows={data.status.deadLetterQueue.topErrors}
                rowKey={(row) => row.error}
              />
            )}
          </section>
          {writer && total > 0 && (
            <div className="actions" role="group" aria-label="Bulk actions">
              <button type="button" onClick={() => setAsking({ kind: 'bulk', bulk: 'requeue' })}>
                Requeue all {formatCount(total)}
              </button>
              <button type="button" className="danger" onClick={() => setAsking({ kind: 'bulk', bulk: 'purge' })}>
                Purge all {formatCount(total)}
              </button>
            </div>
          )}
          <DataTable
            className="card"
            caption="Dead-letter entries, newest failure first"
            columns={columns}
            rows={data.list.messages}
            rowKey={(row) => entryKey({ ...row, group: groupOf(row) })}
          />
          {data.list.messages.length === 0 && <p>No dead-letter entry matches these filters.</p>}
          <Pager
            page={route.page}
            hasNext={route.page * PAGE_SIZE < total}
            hrefOfPage={(page) => dlqHref({ ...route, page, open: undefined })}
          />
        </>
      )}
      {open !== undefined && (
        <Drawer title={`Dead letter ${open.transactionId}`} closeHref={listHref}>
          {entry === undefined ? (
            <p>
              {data === undefined
                ? 'Loading…'
                : 'This entry is not on this page of the list, or has left the dead-letter queue.'}
            </p>
          ) : (
            <EntryDetail
              entry={entry}
              writer={writer}
              onAsk={(action) => setAsking({ kind: 'entry', action, entry })}
            />
          )}
        </Drawer>
      )}
      <ConfirmDialog
        open={asking !== undefined}
        title={dialog.title}
        body={dialog.body}
        confirmLabel={dialog.confirm}
        onConfirm={() => {
          if (asking === undefined) return Promise.resolve()
          return asking.kind === 'bulk' ? runBulkAction(asking.bulk) : runEntryAction(asking.action, asking.entry)
        }}
        onClose={() => setAsking(undefined)}
      />
    </>
  )
}

/** 1 dead letter, 3 dead letters */
function deadLetters(count: number): string {
  return `${formatCount(count)} dead letter${count === 1 ? '' : 's'}`
}

function dialogText(asking: Asking | undefined, total: number, route: DlqRoute) {
  if (asking === undefined) return { title: '', body: '', confirm: '' }
  const filters =
    [
      route.queue && `queue ${route.queue}`,
      route.partition && `partition ${route.partition}`,
      route.group && `group ${route.group}`,
      route.since !== 'all' && `failed in the last ${route.since}`,
    ]
      .filter(Boolean)
      .join(', ') || 'no filter: the whole dead-letter queue'
  if (asking.kind === 'bulk' && asking.bulk === 'requeue') {
    return {
      title: `Requeue ${deadLetters(total)}?`,
      body: `Every entry matching the filters (${filters}) is delivered again to the group that gave up on it, with its failure count at 0.`,
      confirm: 'Requeue all',
    }
  }
  if (asking.kind === 'bulk') {
    return {
      title: `Purge ${deadLetters(total)}?`,
      body: `The messages of every entry matching the filters (${filters}) are deleted with their dead-letter entries and traces, for every group. This cannot be undone.`,
      confirm: 'Purge',
    }
  }
  if (asking.action === 'requeue') {
    return {
      title: `Requeue ${asking.entry.transactionId}?`,
      body: `It is delivered again to ${asking.entry.consumerGroup === null ? 'its group' : groupText(asking.entry.consumerGroup)}, with its failure count at 0.`,
      confirm: 'Requeue',
    }
  }
  return {
    title: `Delete ${asking.entry.transactionId}?`,
    body: 'The message, its dead-letter entries and its traces are deleted, for every group. This cannot be undone.',
    confirm: 'Delete',
  }
}

function EntryDetail(props: { entry: DlqMessage; writer: boolean; onAsk: (action: 'requeue' | 'delete') => void }) {
  const { entry } = props
  return (
    <>
      {props.writer && (
        <div className="actions" role="group" aria-label="Entry actions">
          <button type="button" onClick={() => props.onAsk('requeue')}>
            Requeue
          </button>
          <button type="button" className="danger" onClick={() => props.onAsk('delete')}>
            Delete message
          </button>
        </div>
      )}
      <dl className="facts">
        <dt>Queue / partition</dt>
        <dd>
          {entry.queue}/{entry.partition}
        </dd>
        <dt>Group</dt>
        <dd>{groupText(entry.consumerGroup)}</dd>
        <dt>Error</dt>
        <dd>{entry.errorMessage ?? '–'}</dd>
        <dt>Retries</dt>
        <dd>{formatCount(entry.retryCount)}</dd>
        <dt>Failed at</dt>
        <dd>{formatWhen(entry.failedAt)}</dd>
        <dt>Created</dt>
        <dd>{formatWhen(entry.createdAt)}</dd>
        {entry.producerSub !== null && (
          <>
            <dt>Producer</dt>
            <dd>{entry.producerSub}</dd>
          </>
        )}
      </dl>
      <p>
        <Link
          href={messagesHref({
            queue: entry.queue,
            partition: '',
            status: '',
            group: '',
            since: 'all',
            page: 1,
            open: { partitionId: entry.partitionId, transactionId: entry.transactionId },
          })}
        >
          Open the message
        </Link>
      </p>
      <h3>Payload</h3>
      {entry.dataError !== undefined ? (
        <p className="error">{entry.dataError}</p>
      ) : (
        <JsonView value={entry.data} label="Payload" />
      )}
    </>
  )
}
