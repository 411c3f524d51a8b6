/** One queue (GET /api/v1/resources/queues/:queue): its counters and partitions. The detail page grows here. */
import type { PartitionDetail, QueueDetailAnswer } from '../../../src/wire/index.js'
import { apiGet } from '../api'
import { DataTable, type Column } from '../components/DataTable'
import { ErrorNote } from '../components/ErrorNote'
import { Link } from '../components/Link'
import { formatCount } from '../format'
import { usePoll } from '../use-poll'

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

export function Queue({ name }: { name: string }) {
  const path = `/api/v1/resources/queues/${encodeURIComponent(name)}`
  const { data, error } = usePoll(`queue:${name}`, (signal) => apiGet<QueueDetailAnswer>(path, 'read', signal))
  return (
    <>
      <p>
        <Link href="/queues">← All queues</Link>
      </p>
      <h1>Queue {name}</h1>
      <ErrorNote error={error} />
      {data !== undefined && (
        <>
          <dl className="tiles">
            {COUNTERS.map((counter) => (
              <div className="tile" key={counter}>
                <dt>{LABELS[counter]}</dt>
                <dd>{formatCount(data.totals[counter])}</dd>
              </div>
            ))}
          </dl>
          <section aria-labelledby="partitions-title" className="card">
            <h2 id="partitions-title">Partitions ({data.partitions.length})</h2>
            <DataTable columns={PARTITION_COLUMNS} rows={data.partitions} rowKey={(partition) => partition.id} />
          </section>
        </>
      )}
    </>
  )
}
