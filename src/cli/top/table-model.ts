/**
 * Tables of the dashboard as pure functions: column widths fitted to the terminal (one flexible name
 * column takes what is left), cells cut with an ellipsis, sorting by a column in either direction,
 * filtering by a name substring, and the window of rows that keeps the selected row on screen.
 */
import { truncate } from '../format.js'

/** One column of a dashboard table. */
export interface TableColumn<Row> {
  header: string
  /** Width in characters; for the flexible column, its minimum. */
  width: number
  /** The column that takes the width the others leave (one per table). */
  flex?: boolean
  align: 'left' | 'right'
  /** The cell text. */
  cell(row: Row): string
  /** What the column sorts by; undefined sorts last. */
  sortValue(row: Row): number | string | undefined
}

/** A sort: a column index and a direction. */
export interface SortState {
  column: number
  descending: boolean
}

/** Space between columns, and the selection marker's width before the first. */
export const COLUMN_GAP = 1
export const MARKER_WIDTH = 2

/** The widths of the columns for a terminal `width` characters wide. */
export function columnWidths(columns: readonly TableColumn<unknown>[], width: number): number[] {
  const fixed = columns.reduce((sum, column) => sum + column.width, 0)
  const gaps = COLUMN_GAP * Math.max(0, columns.length - 1)
  const spare = Math.max(0, width - MARKER_WIDTH - gaps - fixed)
  return columns.map((column) => (column.flex ? column.width + spare : column.width))
}

/** A cell cut or padded to `width`, with an ellipsis when cut. */
export function fitCell(text: string, width: number, align: 'left' | 'right'): string {
  const cut = truncate(text, width)
  return align === 'right' ? cut.padStart(width) : cut.padEnd(width)
}

/** One line of a table: the cells fitted and joined. */
export function tableLine(cells: readonly string[], columns: readonly TableColumn<never>[], widths: number[]): string {
  return cells
    .map((cell, index) => fitCell(cell, widths[index] ?? 0, columns[index]?.align ?? 'left'))
    .join(' '.repeat(COLUMN_GAP))
    .trimEnd()
}

function compare(a: number | string | undefined, b: number | string | undefined): number {
  if (a === undefined || b === undefined) return a === b ? 0 : a === undefined ? 1 : -1
  if (typeof a === 'number' && typeof b === 'number') return a - b
  return String(a).localeCompare(String(b))
}

/** Rows sorted by one column (stable; rows without a value last in either direction). */
export function sortRows<Row>(rows: readonly Row[], columns: readonly TableColumn<Row>[], sort: SortState): Row[] {
  const column = columns[sort.column] ?? columns[0]
  if (!column) return [...rows]
  const keyed = rows.map((row, index) => ({ row, index, value: column.sortValue(row) }))
  keyed.sort((a, b) => {
    if (a.value === undefined || b.value === undefined) {
      return a.value === b.value ? a.index - b.index : a.value === undefined ? 1 : -1
    }
    const order = compare(a.value, b.value)
    return (sort.descending ? -order : order) || a.index - b.index
  })
  return keyed.map((entry) => entry.row)
}

/** Rows whose name contains `filter` (case-insensitive); all rows for an empty filter. */
export function filterRows<Row>(rows: readonly Row[], filter: string, names: (row: Row) => string[]): Row[] {
  const needle = filter.trim().toLowerCase()
  if (needle === '') return [...rows]
  return rows.filter((row) => names(row).some((name) => name.toLowerCase().includes(needle)))
}

/** The first row of a window of `height` rows that shows the `selected` one. */
export function windowStart(selected: number, count: number, height: number): number {
  if (height <= 0 || count <= height) return 0
  const start = selected - Math.floor(height / 2)
  return Math.max(0, Math.min(start, count - height))
}

/** The selected index clamped to the rows there are. */
export function clampSelection(selected: number, count: number): number {
  return count === 0 ? 0 : Math.max(0, Math.min(selected, count - 1))
}
