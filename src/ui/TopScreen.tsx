/**
 * The whole screen, as a function of the data, the screen state and the terminal size: header, tabs, the
 * pane on screen, the status bar and the key bar, in exactly `rows - 1` lines (Ink redraws the whole
 * terminal when its output fills every row, so the last row stays for the cursor).
 */
import { Box } from 'ink'
import { formatCount, formatDuration } from '../cli/format.js'
import { NEEDS_ADMIN, paneFreshness } from '../cli/top/pane-status.js'
import { PANE_TITLES, PANES, type PaneKey, type RouteKey } from '../cli/top/routes.js'
import { dlqSummary } from '../cli/top/pane-rows.js'
import type { TableView } from '../cli/top/table-view.js'
import type { TopData } from '../cli/top/top-data.js'
import type { ViewState } from '../cli/top/view-state.js'
import { KeyBar } from './KeyBar.js'
import { Line } from './Line.js'
import { HelpPane } from './panes/HelpPane.js'
import { OverviewPane } from './panes/OverviewPane.js'
import { StatusBar } from './StatusBar.js'
import { TablePane } from './TablePane.js'
import type { TerminalSize } from './use-terminal-size.js'

/** Smallest terminal the dashboard lays out in. */
export const MIN_SIZE: TerminalSize = { columns: 40, rows: 12 }

/** Lines around the pane: header, tabs, status bar, key bar. */
const CHROME_LINES = 4

export interface TopScreenProps {
  data: TopData
  view: ViewState
  /** The table on screen (null on the Overview). */
  table: TableView | null
  server: string
  size: TerminalSize
  now: number
}

/** The route whose age a pane shows. */
function paneRoute(pane: PaneKey, drill: string | null): RouteKey {
  switch (pane) {
    case 'overview':
      return 'status'
    case 'queues':
      return drill === null ? 'queues' : 'partitions'
    case 'groups':
      return 'groups'
    case 'dlq':
      return 'dlq'
    case 'system':
      return 'systemMetrics'
    case 'mesh':
      return 'mesh'
  }
}

function tabLine(active: PaneKey): string {
  return PANES.map((pane, index) =>
    pane === active ? `[${index + 1} ${PANE_TITLES[pane]}]` : ` ${index + 1} ${PANE_TITLES[pane]} `,
  ).join(' ')
}

/** The lines under the DLQ table: the exact total and the most frequent errors. */
function dlqFooter(data: TopData): string[] {
  const summary = dlqSummary(data)
  if (!summary || summary.total === 0) return []
  const sampled =
    summary.sampled < summary.total
      ? `${formatCount(summary.total)} entries; counts among the newest ${formatCount(summary.sampled)}`
      : `${formatCount(summary.total)} entries`
  return [
    `top errors (${sampled}):`,
    ...summary.topErrors.map((entry) => `  ${formatCount(entry.count).padStart(7)}  ${entry.error}`),
  ]
}

/** The line under the replicas: PostgreSQL connections and cache hit ratios. */
function postgresFooter(data: TopData, now: number, intervalMs: number): string[] {
  const route = data.routes.postgres
  const freshness = paneFreshness(route, now, intervalMs)
  if (freshness.forbidden) return [`PostgreSQL: ${NEEDS_ADMIN}`]
  const stats = route?.data
  if (!stats) return [`PostgreSQL: ${freshness.text}`]
  const percent = (value: number | null | undefined) => (value === null || value === undefined ? '-' : `${value}%`)
  const connections = stats.databaseCache
    ? `connections ${formatCount(stats.databaseCache.connections)}${stats.bufferConfig ? ` of ${formatCount(stats.bufferConfig.maxConnections)}` : ''}`
    : 'connections -'
  return [
    `PostgreSQL: ${connections} · cache hit ${percent(stats.databaseCache?.hitRatio)} ` +
      `(tables ${percent(stats.cacheSummary?.tableHitRatio)}, indexes ${percent(stats.cacheSummary?.indexHitRatio)})`,
  ]
}

/** The lines under the peers: this broker's side of the mesh. */
function meshFooter(data: TopData): string[] {
  const mesh = data.routes.mesh?.data
  if (!mesh) return []
  const auth = mesh.auth === 'off' ? 'auth off (open mode)' : `auth ${mesh.auth}`
  return [
    `self ${mesh.serverId} · port ${mesh.port} · ${auth} · ${mesh.listening ? 'listening' : 'not listening'} · ` +
      `peers ${mesh.peersConnected}/${mesh.peersConfigured} connected`,
  ]
}

function PaneBody({
  data,
  view,
  table,
  now,
  width,
  height,
}: Omit<TopScreenProps, 'server' | 'size'> & {
  width: number
  height: number
}) {
  const freshness = paneFreshness(data.routes[paneRoute(view.pane, view.drill)], now, view.intervalMs)
  if (view.help) return <HelpPane />
  if (view.pane === 'overview' || table === null) {
    return <OverviewPane data={data} freshness={freshness} width={width} now={now} />
  }
  const common = { table, freshness, filter: view.filter[table.key], width, height }
  switch (table.key) {
    case 'queues':
      return <TablePane {...common} title="Queues" noun="queues" />
    case 'partitions':
      return <TablePane {...common} title={`Queue ${view.drill ?? ''} › partitions`} noun="partitions" />
    case 'groups':
      return <TablePane {...common} title="Groups" noun="groups" />
    case 'dlq':
      return <TablePane {...common} title="DLQ" noun="queue/group pairs" footer={dlqFooter(data)} />
    case 'system':
      return (
        <TablePane {...common} title="System" noun="replicas" footer={postgresFooter(data, now, view.intervalMs)} />
      )
    case 'mesh':
      return <TablePane {...common} title="Mesh" noun="peers" footer={meshFooter(data)} />
  }
}

export function TopScreen({ data, view, table, server, size, now }: TopScreenProps) {
  if (size.columns < MIN_SIZE.columns || size.rows < MIN_SIZE.rows) {
    return (
      <Line
        text={`terminal too small (${size.columns}x${size.rows}); top needs ${MIN_SIZE.columns}x${MIN_SIZE.rows}`}
        tone="warn"
      />
    )
  }
  const height = size.rows - 1
  const bodyHeight = height - CHROME_LINES
  const header = [
    'queenctl top',
    server,
    `every ${formatDuration(view.intervalMs)}`,
    ...(view.paused ? ['PAUSED'] : []),
  ].join(' · ')
  return (
    <Box flexDirection="column" width={size.columns} height={height}>
      <Line text={header} tone="title" />
      <Line text={tabLine(view.pane)} />
      <Box flexDirection="column" height={bodyHeight} overflow="hidden">
        <PaneBody data={data} view={view} table={table} now={now} width={size.columns} height={bodyHeight} />
      </Box>
      <StatusBar data={data} server={server} paused={view.paused} intervalMs={view.intervalMs} now={now} />
      <KeyBar view={view} />
    </Box>
  )
}
