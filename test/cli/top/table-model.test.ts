/** TopScreen tables (table-model.ts): widths, ellipsis, sorting, filtering, the window of visible rows. */
import { describe, expect, it } from 'vitest'
import {
  columnWidths,
  filterRows,
  fitCell,
  sortRows,
  windowStart,
  type TableColumn,
} from '../../../src/cli/top/table-model.js'

interface Row {
  name: string
  count?: number
}

const COLUMNS: TableColumn<Row>[] = [
  { header: 'NAME', width: 6, flex: true, align: 'left', cell: (row) => row.name, sortValue: (row) => row.name },
  {
    header: 'COUNT',
    width: 5,
    align: 'right',
    cell: (row) => String(row.count ?? '-'),
    sortValue: (row) => row.count,
  },
]

describe('dashboard tables', () => {
  it('gives the flexible column what the others leave, after the marker and gaps', () => {
    expect(columnWidths(COLUMNS as TableColumn<unknown>[], 40)).toEqual([32, 5])
    expect(columnWidths(COLUMNS as TableColumn<unknown>[], 5)).toEqual([6, 5])
  })

  it('cuts a cell with an ellipsis and pads it to its alignment', () => {
    expect(fitCell('orders-eu-west', 8, 'left')).toBe('orders-…')
    expect(fitCell('42', 5, 'right')).toBe('   42')
  })

  it('sorts either way with rows lacking a value last, and keeps ties in order', () => {
    const rows: Row[] = [{ name: 'b', count: 2 }, { name: 'a' }, { name: 'c', count: 2 }, { name: 'd', count: 9 }]
    const names = (sorted: Row[]) => sorted.map((row) => row.name)
    expect(names(sortRows(rows, COLUMNS, { column: 1, descending: false }))).toEqual(['b', 'c', 'd', 'a'])
    expect(names(sortRows(rows, COLUMNS, { column: 1, descending: true }))).toEqual(['d', 'b', 'c', 'a'])
    expect(names(sortRows(rows, COLUMNS, { column: 0, descending: true }))).toEqual(['d', 'c', 'b', 'a'])
  })

  it('filters by a case-insensitive substring of any name', () => {
    const rows = [{ name: 'Orders' }, { name: 'audit' }]
    expect(filterRows(rows, 'ORD', (row) => [row.name])).toEqual([{ name: 'Orders' }])
    expect(filterRows(rows, ' ', (row) => [row.name])).toEqual(rows)
  })

  it('keeps the selected row inside the visible window', () => {
    expect(windowStart(0, 100, 10)).toBe(0)
    expect(windowStart(50, 100, 10)).toBe(45)
    expect(windowStart(99, 100, 10)).toBe(90)
    expect(windowStart(3, 5, 10)).toBe(0)
  })
})
