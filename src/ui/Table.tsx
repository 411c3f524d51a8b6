/**
 * A dashboard table: the header, then the window of rows that keeps the selected one on screen, each cut to
 * the terminal width with an ellipsis (the pane's title names the sort column).
 */
import { Box } from 'ink'
import { columnWidths, MARKER_WIDTH, tableLine, windowStart } from '../cli/top/table-model.js'
import type { TableView } from '../cli/top/table-view.js'
import { Line } from './Line.js'

export interface TableProps {
  table: TableView
  width: number
  /** Lines available, the header included. */
  height: number
}

export function Table({ table, width, height }: TableProps) {
  const columns = table.columns as TableView<never>['columns']
  const widths = columnWidths(columns, width)
  const headers = columns.map((column) => column.header)
  const visible = Math.max(0, height - 1)
  const start = windowStart(table.selected, table.rows.length, visible)
  const rows = table.rows.slice(start, start + visible) as never[]
  return (
    <Box flexDirection="column">
      <Line text={' '.repeat(MARKER_WIDTH) + tableLine(headers, columns, widths)} tone="header" />
      {rows.map((row, offset) => {
        const selected = start + offset === table.selected
        const cells = columns.map((column) => column.cell(row))
        const marker = selected ? '› ' : '  '
        return <Line key={start + offset} text={marker + tableLine(cells, columns, widths)} selected={selected} />
      })}
    </Box>
  )
}
