/**
 * A table of rows, one column definition per column: header, cell, alignment (numbers right-aligned in
 * tabular figures) and, for a sorted column, its `aria-sort`. It scrolls sideways inside its box, never the
 * page, on a narrow screen; while it overflows, its box takes the focus, so the keyboard can scroll it too.
 */
import { useEffect, useRef, useState, type ReactNode } from 'react'

/** One column of a {@link DataTable}. */
export interface Column<T> {
  key: string
  header: ReactNode
  cell: (row: T) => ReactNode
  numeric?: boolean
  /** Set on the column the rows are sorted by. */
  sort?: 'ascending' | 'descending'
}

export function DataTable<T>(props: {
  columns: readonly Column<T>[]
  rows: readonly T[]
  rowKey: (row: T) => string
  /** Read by screen readers only. */
  caption?: string
  className?: string
}) {
  const box = useRef<HTMLDivElement>(null)
  const [overflows, setOverflows] = useState(false)
  useEffect(() => {
    const element = box.current
    if (element === null) return
    const check = () => setOverflows(element.scrollWidth > element.clientWidth)
    check()
    const observer = new ResizeObserver(check)
    observer.observe(element)
    if (element.firstElementChild !== null) observer.observe(element.firstElementChild)
    return () => observer.disconnect()
  }, [])
  return (
    <div
      ref={box}
      className={props.className === undefined ? 'table-scroll' : `table-scroll ${props.className}`}
      {...(overflows ? { tabIndex: 0, role: 'region', 'aria-label': props.caption ?? 'Table, scrolls sideways' } : {})}
    >
      <table className="data">
        {props.caption !== undefined && <caption className="sr-only">{props.caption}</caption>}
        <thead>
          <tr>
            {props.columns.map((column) => (
              <th key={column.key} scope="col" className={column.numeric ? 'num' : undefined} aria-sort={column.sort}>
                {column.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {props.rows.map((row) => (
            <tr key={props.rowKey(row)}>
              {props.columns.map((column) => (
                <td key={column.key} className={column.numeric ? 'num' : undefined}>
                  {column.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
