/**
 * A pane made of a title line (name, row count, sort, freshness), a table, and optional lines under it.
 * A route refused with 403 shows `needs admin role`; a route that never answered shows why.
 */
import { Box } from 'ink'
import { formatCount } from '../cli/format.js'
import type { PaneFreshness } from '../cli/top/pane-status.js'
import type { TableView } from '../cli/top/table-view.js'
import { Line } from './Line.js'
import { Table } from './Table.js'

export interface TablePaneProps {
  title: string
  table: TableView
  freshness: PaneFreshness
  /** The name filter, shown in the title when set. */
  filter: string
  /** What to call the rows (`queues`, `partitions`). */
  noun: string
  width: number
  height: number
  /** Lines under the table (DLQ top errors, PostgreSQL figures). */
  footer?: readonly string[]
}

/** `(3)`, or `(2 of 40)` under a filter. */
function countText(table: TableView): string {
  const shown = formatCount(table.rows.length)
  return table.rows.length === table.total ? `(${shown})` : `(${shown} of ${formatCount(table.total)})`
}

export function TablePane({ title, table, freshness, filter, noun, width, height, footer = [] }: TablePaneProps) {
  if (freshness.forbidden || !table.loaded) {
    return (
      <Box flexDirection="column">
        <Line text={title} tone="title" />
        <Line text={`  ${freshness.text}`} tone={freshness.forbidden || freshness.stale ? 'warn' : 'dim'} />
      </Box>
    )
  }
  const column = table.columns[table.sort.column]
  const parts = [
    `${title} ${countText(table)}`,
    `sort ${column?.header ?? '-'} ${table.sort.descending ? '▼' : '▲'}`,
    ...(filter === '' ? [] : [`filter "${filter}"`]),
    freshness.text,
  ]
  const tableHeight = Math.max(2, height - 1 - (footer.length > 0 ? footer.length + 1 : 0))
  return (
    <Box flexDirection="column">
      <Line text={parts.join(' · ')} tone={freshness.stale ? 'warn' : 'title'} />
      {table.rows.length === 0 ? (
        <Line
          text={filter === '' || table.total === 0 ? `  no ${noun}` : `  no ${noun} match "${filter}"`}
          tone="dim"
        />
      ) : (
        <Table table={table} width={width} height={tableHeight} />
      )}
      {footer.length > 0 ? <Line text="" /> : null}
      {footer.map((line, index) => (
        <Line key={index} text={line} />
      ))}
    </Box>
  )
}
