/** Pane 1: rates with sparklines, then the cluster's figures in columns. */
import { Box } from 'ink'
import { overviewCells, rateLines, SPARK_CAPTION } from '../../cli/top/overview.js'
import type { PaneFreshness } from '../../cli/top/pane-status.js'
import { sparkline } from '../../cli/top/sparkline.js'
import type { TopData } from '../../cli/top/top-data.js'
import { Line } from '../Line.js'

export interface OverviewPaneProps {
  data: TopData
  freshness: PaneFreshness
  width: number
  now: number
}

/** Width of one label/value cell, and the gap after it. */
const CELL_WIDTH = 24
const CELL_GAP = 2

export function OverviewPane({ data, freshness, width, now }: OverviewPaneProps) {
  const rates = rateLines(data, now)
  const cells = overviewCells(data)
  const perRow = Math.max(1, Math.floor((width - 2 + CELL_GAP) / (CELL_WIDTH + CELL_GAP)))
  const rows: (typeof cells)[] = []
  for (let index = 0; index < cells.length; index += perRow) rows.push(cells.slice(index, index + perRow))
  return (
    <Box flexDirection="column">
      <Line text={`Overview · ${freshness.text}`} tone={freshness.stale ? 'warn' : 'title'} />
      <Line text="" />
      {rates.map((line) => (
        <Line key={line.label} text={`  ${line.label.padEnd(9)}${line.rate.padStart(9)}  ${sparkline(line.minutes)}`} />
      ))}
      <Line text={`  ${SPARK_CAPTION}`} tone="dim" />
      <Line text="" />
      {rows.map((row, index) => (
        <Line
          key={index}
          tone={row.some((cell) => cell.warn) ? 'warn' : 'normal'}
          text={`  ${row
            .map((cell) => `${cell.label.padEnd(CELL_WIDTH - 10)}${cell.value.padStart(10)}`)
            .join(' '.repeat(CELL_GAP))}`}
        />
      ))}
    </Box>
  )
}
