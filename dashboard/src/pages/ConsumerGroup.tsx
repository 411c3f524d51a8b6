/**
 * One consumer group (GET /api/v1/consumer-groups/:group, one request per tick): its partitions on each
 * queue with their lag, marked past the threshold of the URL. Actions, each behind a confirmation: seek a
 * queue to its end or to a time, seek one partition to its end (write role), delete the group (admin).
 * Every action reloads the view, so what is shown is what the broker now holds.
 */
import { useState, type FormEvent } from 'react'
import type {
  ConsumerGroupDeleteAnswer,
  ConsumerGroupDetailAnswer,
  ConsumerGroupSeekAnswer,
  GroupPartition,
  PartitionSeekAnswer,
} from '../../../src/wire/index.js'
import { apiDelete, apiGet, apiPost } from '../api'
import { mayAdminister, mayWrite, useAuth } from '../auth'
import { ConfirmDialog } from '../components/ConfirmDialog'
import { DataTable, type Column } from '../components/DataTable'
import { ErrorNote } from '../components/ErrorNote'
import { LagThreshold } from '../components/LagThreshold'
import { Link } from '../components/Link'
import { formatCount } from '../format'
import { hrefOf, navigate } from '../router'
import { usePoll } from '../use-poll'
import { groupLabel, LagAge } from './ConsumerGroups'

/** An action waiting for its confirmation. */
interface Pending {
  title: string
  body: string
  confirmLabel: string
  run: () => Promise<string>
}

const seg = encodeURIComponent

export function ConsumerGroup({ name, threshold }: { name: string; threshold: number }) {
  const auth = useAuth()
  const path = `/api/v1/consumer-groups/${seg(name)}`
  const poll = usePoll(`consumer-group:${name}`, (signal) => apiGet<ConsumerGroupDetailAnswer>(path, 'read', signal))
  const { data, error } = poll
  const [pending, setPending] = useState<Pending | undefined>()
  const [done, setDone] = useState<string | undefined>()
  const writer = mayWrite(auth.token) && !auth.required
  const admin = mayAdminister(auth.token) && !auth.required
  const label = groupLabel(name)

  const ask = (action: Pending) => {
    setDone(undefined)
    setPending(action)
  }
  const seekQueueToEnd = (queue: string) =>
    ask({
      title: `Seek ${label} to the end of ${queue}?`,
      body: `The group's cursor moves past every message of ${queue} on every partition: what it has not consumed is skipped, and its leases there are released.`,
      confirmLabel: 'Seek to end',
      run: async () => {
        const answer = await apiPost<ConsumerGroupSeekAnswer>(`${path}/queues/${seg(queue)}/seek`, 'write', {
          toEnd: true,
        })
        return `Moved ${label} to the end of ${queue} on ${formatCount(answer.partitionsUpdated)} partition(s).`
      },
    })
  const seekQueueToTime = (queue: string, timestamp: string) =>
    ask({
      title: `Seek ${label} on ${queue} to ${timestamp}?`,
      body: `On every partition of ${queue}, the group's cursor moves to the last message created at or before ${timestamp} (a time without an offset is UTC): later messages are delivered to it again, earlier ones are skipped.`,
      confirmLabel: 'Seek to time',
      run: async () => {
        const answer = await apiPost<ConsumerGroupSeekAnswer>(`${path}/queues/${seg(queue)}/seek`, 'write', {
          timestamp,
        })
        return `Moved ${label} on ${queue} to ${answer.targetTimestamp ?? timestamp} on ${formatCount(answer.partitionsUpdated)} partition(s).`
      },
    })
  const seekPartitionToEnd = (queue: string, partition: string) =>
    ask({
      title: `Seek ${label} to the end of ${queue}/${partition}?`,
      body: `The group skips what it has not consumed of partition ${partition}; its other partitions stay where they are.`,
      confirmLabel: 'Seek to end',
      run: async () => {
        await apiPost<PartitionSeekAnswer>(
          `${path}/queues/${seg(queue)}/partitions/${seg(partition)}/seek`,
          'write',
          {},
        )
        return `Moved ${label} to the end of ${queue}/${partition}.`
      },
    })
  const deleteGroup = () =>
    ask({
      title: `Delete consumer group ${label}?`,
      body: `Its cursors, leases and per-message state on every queue are removed, and its subscriptions. A consumer that pops with this group again starts as a new group.`,
      confirmLabel: 'Delete group',
      run: async () => {
        const answer = await apiDelete<ConsumerGroupDeleteAnswer>(path, 'admin')
        navigate(hrefOf({ view: 'consumer-groups', threshold, lagging: false, search: '' }))
        return `Deleted ${label} (${formatCount(answer.deletedPartitions)} partition cursor(s)).`
      },
    })

  const queues = Object.entries(data ?? {}).sort(([a], [b]) => a.localeCompare(b))
  return (
    <>
      <p>
        <Link href={hrefOf({ view: 'consumer-groups', threshold, lagging: false, search: '' })}>
          ← All consumer groups
        </Link>
      </p>
      <div className="page-title">
        <h1>Consumer group {label}</h1>
        <LagThreshold
          threshold={threshold}
          onChange={(next) => navigate(hrefOf({ view: 'consumer-group', name, threshold: next }), { replace: true })}
        />
      </div>
      {admin && data !== undefined && queues.length > 0 && (
        <p>
          <button type="button" className="danger" onClick={deleteGroup}>
            Delete group
          </button>
        </p>
      )}
      {done !== undefined && (
        <p className="done" role="status">
          {done}
        </p>
      )}
      <ErrorNote error={error} />
      {data !== undefined && queues.length === 0 && <p>The group {label} has no cursor on any queue.</p>}
      {queues.map(([queue, { partitions }], index) => (
        <section key={queue} className="card" aria-labelledby={`group-queue-${index}`}>
          <h2 id={`group-queue-${index}`}>
            On queue <Link href={hrefOf({ view: 'queue', name: queue })}>{queue}</Link>
          </h2>
          {writer && (
            <div className="actions">
              <button type="button" onClick={() => seekQueueToEnd(queue)}>
                Seek {queue} to end
              </button>
              <SeekToTime
                id={`seek-time-${index}`}
                queue={queue}
                onSeek={(timestamp) => seekQueueToTime(queue, timestamp)}
              />
            </div>
          )}
          <DataTable
            caption={`Partitions of ${queue} for ${label}`}
            columns={partitionColumns(queue, threshold, writer ? seekPartitionToEnd : undefined)}
            rows={[...partitions].sort((a, b) => a.partition.localeCompare(b.partition))}
            rowKey={(row) => row.partition}
          />
        </section>
      ))}
      <ConfirmDialog
        open={pending !== undefined}
        title={pending?.title ?? ''}
        body={pending?.body ?? ''}
        confirmLabel={pending?.confirmLabel ?? ''}
        onConfirm={async () => {
          if (pending === undefined) return
          setDone(await pending.run())
          poll.reload()
        }}
        onClose={() => setPending(undefined)}
      />
    </>
  )
}

function partitionColumns(
  queue: string,
  threshold: number,
  seek: ((queue: string, partition: string) => void) | undefined,
): Column<GroupPartition>[] {
  const columns: Column<GroupPartition>[] = [
    { key: 'partition', header: 'Partition', cell: (row) => row.partition },
    { key: 'lag', header: 'Unsettled', numeric: true, cell: (row) => formatCount(row.offsetLag) },
    {
      key: 'age',
      header: 'Oldest unsettled',
      numeric: true,
      cell: (row) => <LagAge seconds={row.timeLagSeconds} threshold={threshold} />,
    },
    { key: 'consumed', header: 'Consumed', numeric: true, cell: (row) => formatCount(row.totalConsumed) },
    {
      key: 'last',
      header: 'Last consumed',
      cell: (row) => (row.lastConsumedAt === null ? 'never' : new Date(row.lastConsumedAt).toLocaleString('en-GB')),
    },
    { key: 'lease', header: 'Leased', cell: (row) => (row.leaseActive ? 'yes' : 'no') },
  ]
  if (seek === undefined) return columns
  return [
    ...columns,
    {
      key: 'seek',
      header: <span className="sr-only">Actions</span>,
      cell: (row) => (
        <button type="button" onClick={() => seek(queue, row.partition)}>
          Seek {row.partition} to end
        </button>
      ),
    },
  ]
}

/** A time to seek a queue to: ISO 8601 as the broker reads it; the broker's error names a bad one. */
function SeekToTime({ id, queue, onSeek }: { id: string; queue: string; onSeek: (timestamp: string) => void }) {
  const [text, setText] = useState('')
  const submit = (event: FormEvent) => {
    event.preventDefault()
    if (text.trim() !== '') onSeek(text.trim())
  }
  return (
    <form className="filter" onSubmit={submit}>
      <label htmlFor={id}>Seek {queue} to time</label>
      <input
        id={id}
        type="text"
        placeholder="2026-12-06T10:00:00Z"
        spellCheck={false}
        value={text}
        onChange={(event) => setText(event.target.value)}
        required
      />
      <button type="submit">Seek to time</button>
    </form>
  )
}
