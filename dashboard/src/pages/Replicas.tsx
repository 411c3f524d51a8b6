/**
 * The replicas page: this broker's view of the mesh (GET /api/v1/system/mesh: each configured peer's state,
 * round trip, heartbeat and what it last reported of itself, parked pops included) and every replica's
 * parked consumers over the window in the URL, as the per-minute metrics recorded them (GET
 * /api/v1/analytics/queue-parked-replicas). A broker without QUEEN_MESH_PEERS says it runs alone.
 */
import type { MeshAnswer, MeshPeer, ParkedAnswer } from '../../../src/wire/index.js'
import { apiGet } from '../api'
import { DataTable, type Column } from '../components/DataTable'
import { ErrorNote } from '../components/ErrorNote'
import { Tile } from '../components/Tile'
import { TimeSeriesChart } from '../components/TimeSeriesChart'
import { WindowPicker } from '../components/WindowPicker'
import { formatCount } from '../format'
import { formatAgo, formatMs } from '../format-units'
import { hrefOf, type TimeWindow } from '../router'
import { useTheme } from '../theme'
import { WINDOW_MS, windowQuery } from '../time-window'
import { usePoll } from '../use-poll'
import '../insights.css'

const COLORS = ['--chart-1', '--chart-2', '--chart-3', '--chart-4', '--chart-5', '--chart-6']

const STATE_CLASS: Record<MeshPeer['state'], string> = {
  connected: 'state state-good',
  self: 'state',
  connecting: 'state',
  backoff: 'state state-bad',
  refused: 'state state-bad',
}

const PEER_COLUMNS: Column<MeshPeer>[] = [
  { key: 'address', header: 'Peer', cell: (p) => p.address },
  { key: 'server', header: 'Server id', cell: (p) => p.serverId ?? '–' },
  { key: 'state', header: 'State', cell: (p) => <span className={STATE_CLASS[p.state]}>{p.state}</span> },
  { key: 'rtt', header: 'Round trip', numeric: true, cell: (p) => formatMs(p.rttMs) },
  {
    key: 'heartbeat',
    header: 'Last heartbeat',
    cell: (p) => (p.state === 'self' ? '–' : formatAgo(p.lastHeartbeatAt)),
  },
  {
    key: 'since',
    header: 'In this state',
    cell: (p) => (p.since === null ? '–' : formatAgo(p.since).replace(/ ago$/, '')),
  },
  {
    key: 'parked',
    header: 'Parked pops',
    numeric: true,
    cell: (p) => (p.stats === null ? '–' : formatCount(p.stats.parkedPops)),
  },
  {
    key: 'pool',
    header: 'Pool (idle/total, waiting)',
    numeric: true,
    cell: (p) => (p.stats === null ? '–' : `${p.stats.poolIdle}/${p.stats.poolTotal}, ${p.stats.poolWaiting}`),
  },
  {
    key: 'spool',
    header: 'Spooled',
    numeric: true,
    cell: (p) => (p.stats === null ? '–' : formatCount(p.stats.spoolRecords)),
  },
  { key: 'error', header: 'Last error', cell: (p) => p.lastError ?? '–' },
]

interface ParkedRow {
  serverId: string
  latest: number
  peak: number
  sampled: string | null
}

const PARKED_COLUMNS: Column<ParkedRow>[] = [
  { key: 'server', header: 'Replica', cell: (r) => r.serverId },
  { key: 'latest', header: 'Parked now', numeric: true, cell: (r) => formatCount(r.latest) },
  { key: 'peak', header: 'Most in the window', numeric: true, cell: (r) => formatCount(r.peak) },
  { key: 'sampled', header: 'Sampled', cell: (r) => formatAgo(r.sampled) },
]

function parkedRows(answer: ParkedAnswer): ParkedRow[] {
  return answer.replicas
    .map((replica) => {
      const ordered = [...replica.series].sort((a, b) => a.bucketTime.localeCompare(b.bucketTime))
      const last = ordered.at(-1)
      return {
        serverId: replica.serverId,
        latest: last?.parkedPops ?? 0,
        peak: Math.max(0, ...ordered.map((point) => point.parkedPops)),
        sampled: last?.bucketTime ?? null,
      }
    })
    .sort((a, b) => a.serverId.localeCompare(b.serverId))
}

function parkedLines(answer: ParkedAnswer) {
  const times = [...new Set(answer.replicas.flatMap((r) => r.series.map((point) => point.bucketTime)))].sort()
  const index = new Map(times.map((time, position) => [time, position]))
  const series = [...answer.replicas]
    .sort((a, b) => a.serverId.localeCompare(b.serverId))
    .map((replica, position) => {
      const values: (number | null)[] = times.map(() => null)
      for (const point of replica.series) values[index.get(point.bucketTime)!] = point.parkedPops
      return { label: replica.serverId, color: COLORS[position % COLORS.length]!, values }
    })
  return { times: times.map((time) => Date.parse(time) / 1000), series }
}

export function Replicas({ span }: { span: TimeWindow }) {
  const theme = useTheme()
  const mesh = usePoll('mesh', (signal) => apiGet<MeshAnswer>('/api/v1/system/mesh', 'admin', signal))
  const parked = usePoll(`parked:${span}`, (signal) =>
    apiGet<ParkedAnswer>(`/api/v1/analytics/queue-parked-replicas?${windowQuery(span)}`, 'read', signal),
  )
  const answer = mesh.data
  const alone = answer !== undefined && answer.peersConfigured === 0 && answer.peers.length === 0
  const rows = parked.data === undefined ? [] : parkedRows(parked.data)
  const lines = parked.data === undefined ? undefined : parkedLines(parked.data)

  return (
    <>
      <div className="page-title">
        <h1>Replicas</h1>
        <WindowPicker current={span} hrefFor={(option) => hrefOf({ view: 'replicas', window: option })} />
      </div>
      <section aria-labelledby="mesh-title" className="card">
        <h2 id="mesh-title">Mesh</h2>
        <ErrorNote error={mesh.error} />
        {answer !== undefined &&
          (alone ? (
            <p role="status">
              No mesh configured: this broker ({answer.serverId}) runs alone (<code>QUEEN_MESH_PEERS</code> is unset).
              Replicas on one database still share everything through PostgreSQL; the mesh only speeds up their
              wake-ups.
            </p>
          ) : (
            <>
              <dl className="tiles">
                <Tile label="This replica" value={answer.serverId} />
                <Tile
                  label="Peers connected"
                  value={`${answer.peersConnected} of ${answer.peers.filter((p) => p.state !== 'self').length}`}
                />
                <Tile
                  label="Mesh port"
                  value={String(answer.port)}
                  note={answer.listening ? 'listening' : 'not listening'}
                />
                <Tile label="Authentication" value={answer.auth === 'hmac' ? 'HMAC' : 'off (open mesh)'} />
                <Tile label="Inbound links" value={formatCount(answer.inbound.length)} />
              </dl>
              <DataTable
                caption="Configured peers as this replica sees them"
                columns={PEER_COLUMNS}
                rows={answer.peers}
                rowKey={(p) => p.address}
              />
            </>
          ))}
      </section>
      <section aria-labelledby="parked-title" className="card">
        <h2 id="parked-title">Parked consumers per replica, last {span}</h2>
        <ErrorNote error={parked.error} />
        {parked.data !== undefined &&
          (rows.length === 0 ? (
            <p>No replica recorded parked consumers in the window.</p>
          ) : (
            <>
              <DataTable columns={PARKED_COLUMNS} rows={rows} rowKey={(r) => r.serverId} />
              {lines !== undefined && (
                <TimeSeriesChart
                  times={lines.times}
                  series={lines.series}
                  theme={theme}
                  format={formatCount}
                  integer
                  windowMs={WINDOW_MS[span]}
                  label={`Long-polls parked per replica per ${parked.data.bucketMinutes}-minute bucket over the last ${span}; now: ${rows.map((r) => `${r.serverId} ${r.latest}`).join(', ')}`}
                />
              )}
            </>
          ))}
      </section>
    </>
  )
}
