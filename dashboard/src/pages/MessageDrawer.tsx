/**
 * One message in a drawer (GET /api/v1/messages/:partitionId/:transactionId and its traces, one tick): its
 * place and status, payload, retries and error, lease, its state per consumer group, and its trace events.
 * Actions, each behind a confirmation and offered to a role that may write (permissions.ts): retry a dead
 * letter, move it to the DLQ, delete it (docs/http-api.md, "Messages, DLQ and traces").
 */
import { useState } from 'react'
import type { MessageDetailAnswer, MessageTracesAnswer } from '../../../src/wire/index.js'
import { apiDelete, apiGet, apiPost, ApiError } from '../api'
import { mayWrite, useAuth } from '../auth'
import { ConfirmDialog } from '../components/ConfirmDialog'
import { DataTable } from '../components/DataTable'
import { Drawer } from '../components/Drawer'
import { ErrorNote } from '../components/ErrorNote'
import { JsonView } from '../components/JsonView'
import { TraceTimeline } from '../components/TraceTimeline'
import { formatCount } from '../format'
import type { MessageRef } from '../inspect-routes'
import { navigate } from '../router'
import { formatWhen, statusText } from '../inspect-format'
import { usePoll } from '../use-poll'

type Action = 'retry' | 'dlq' | 'delete'

/** The path of a message's routes. */
export function messagePath(ref: MessageRef, suffix = ''): string {
  return `/api/v1/messages/${encodeURIComponent(ref.partitionId)}/${encodeURIComponent(ref.transactionId)}${suffix}`
}

interface Detail {
  message: MessageDetailAnswer
  traces: MessageTracesAnswer
}

async function fetchDetail(ref: MessageRef, signal: AbortSignal): Promise<Detail> {
  const [message, traces] = await Promise.all([
    apiGet<MessageDetailAnswer>(messagePath(ref), 'read', signal),
    apiGet<MessageTracesAnswer>(
      `/api/v1/traces/${encodeURIComponent(ref.partitionId)}/${encodeURIComponent(ref.transactionId)}`,
      'read',
      signal,
    ),
  ])
  return { message, traces }
}

export function MessageDrawer(props: {
  message: MessageRef
  /** The group of the list's filter: the one retry and move-to-DLQ act for ('' is queue mode / every group). */
  group: string
  closeHref: string
  onChanged: () => void
}) {
  const auth = useAuth()
  const poll = usePoll(`message:${props.message.partitionId}/${props.message.transactionId}`, (s) =>
    fetchDetail(props.message, s),
  )
  const { data, error } = poll
  const [asking, setAsking] = useState<Action | undefined>()
  const [done, setDone] = useState<string | undefined>()
  const writer = mayWrite(auth.token) && !auth.required
  const message = data?.message
  const forGroup = props.group === '' ? {} : { consumerGroup: props.group }
  const groupWords = props.group === '' ? 'queue mode' : `group ${props.group}`

  const act = async (action: Action) => {
    switch (action) {
      case 'retry': {
        const answer = await apiPost<{ requeued: number }>(messagePath(props.message, '/retry'), 'write', forGroup)
        setDone(`Retried: redelivered to ${formatCount(answer.requeued)} group(s).`)
        break
      }
      case 'dlq':
        await apiPost(messagePath(props.message, '/dlq'), 'write', forGroup)
        setDone(`Moved to the dead-letter queue for ${groupWords}.`)
        break
      case 'delete': {
        const answer = await apiDelete<{ success: boolean; message: string }>(messagePath(props.message), 'write')
        if (!answer.success) throw new ApiError(answer.message, 404)
        props.onChanged()
        navigate(props.closeHref)
        return
      }
    }
    poll.reload()
    props.onChanged()
  }

  const title = `Message ${props.message.transactionId}`
  const ACTIONS: Record<Action, { label: string; title: string; body: string; confirm: string }> = {
    retry: {
      label: 'Retry',
      title: `Retry ${props.message.transactionId}?`,
      body: `It leaves the dead-letter queue for ${props.group === '' ? 'every group that has it there' : groupWords} and is delivered again, with its failure count at 0.`,
      confirm: 'Retry',
    },
    dlq: {
      label: 'Move to DLQ',
      title: `Move ${props.message.transactionId} to the dead-letter queue?`,
      body: `It is dead-lettered for ${groupWords}: settled for it, and a lease holding it can no longer ack it.`,
      confirm: 'Move to DLQ',
    },
    delete: {
      label: 'Delete',
      title: `Delete ${props.message.transactionId}?`,
      body: 'The message, its dead-letter entries and its traces are deleted, for every group. This cannot be undone.',
      confirm: 'Delete',
    },
  }
  const offered: Action[] =
    message === undefined
      ? []
      : [
          ...(message.status === 'dead_letter' ? (['retry'] as const) : []),
          ...(message.status === 'pending' || message.status === 'processing' ? (['dlq'] as const) : []),
          'delete',
        ]

  return (
    <Drawer title={title} closeHref={props.closeHref}>
      <ErrorNote error={error} />
      {done !== undefined && (
        <p className="success" role="status">
          {done}
        </p>
      )}
      {message !== undefined && (
        <>
          {writer && (
            <div className="actions" role="group" aria-label="Message actions">
              {offered.map((action) => (
                <button
                  key={action}
                  type="button"
                  className={action === 'delete' ? 'danger' : undefined}
                  onClick={() => setAsking(action)}
                >
                  {ACTIONS[action].label}
                </button>
              ))}
            </div>
          )}
          <dl className="facts">
            <dt>Queue / partition</dt>
            <dd>{message.queuePath}</dd>
            <dt>Status (queue mode)</dt>
            <dd>
              <span className={`status ${message.status}`}>{statusText(message.status)}</span>
            </dd>
            <dt>Retries</dt>
            <dd>
              {formatCount(message.retryCount)} of {formatCount(message.queueConfig.retryLimit)} allowed
            </dd>
            {message.errorMessage !== null && (
              <>
                <dt>Last error</dt>
                <dd>{message.errorMessage}</dd>
              </>
            )}
            <dt>Lease until</dt>
            <dd>{formatWhen(message.leaseExpiresAt)}</dd>
            <dt>Created</dt>
            <dd>{formatWhen(message.createdAt)}</dd>
            <dt>Message id</dt>
            <dd className="mono">{message.id}</dd>
            <dt>Trace id</dt>
            <dd className="mono">{message.traceId ?? '–'}</dd>
            {message.producerSub !== null && (
              <>
                <dt>Producer</dt>
                <dd>{message.producerSub}</dd>
              </>
            )}
          </dl>
          <h3>Payload{message.isEncrypted ? ' (decrypted)' : ''}</h3>
          {message.payloadError !== undefined ? (
            <p className="error">{message.payloadError}</p>
          ) : (
            <JsonView value={message.payload} label="Payload" />
          )}
          {message.consumerGroups.length > 0 && (
            <>
              <h3>Consumer groups</h3>
              <DataTable
                columns={[
                  { key: 'name', header: 'Group', cell: (g) => g.name },
                  { key: 'consumed', header: 'Consumed', cell: (g) => (g.consumed ? 'yes' : 'no') },
                  { key: 'lease', header: 'Lease until', cell: (g) => formatWhen(g.leaseExpiresAt) },
                ]}
                rows={message.consumerGroups}
                rowKey={(g) => g.name}
              />
            </>
          )}
          <h3>Trace events ({data?.traces.traces.length ?? 0})</h3>
          {data !== undefined && data.traces.traces.length > 0 ? (
            <TraceTimeline events={data.traces.traces} label={`Trace events of ${props.message.transactionId}`} />
          ) : (
            <p className="note">No trace events recorded for this message.</p>
          )}
        </>
      )}
      <ConfirmDialog
        open={asking !== undefined}
        title={asking === undefined ? '' : ACTIONS[asking].title}
        body={asking === undefined ? '' : ACTIONS[asking].body}
        confirmLabel={asking === undefined ? '' : ACTIONS[asking].confirm}
        onConfirm={() => (asking === undefined ? Promise.resolve() : act(asking))}
        onClose={() => setAsking(undefined)}
      />
    </Drawer>
  )
}
