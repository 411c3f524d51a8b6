/**
 * The table on screen: the rows of the current pane (or the drilled queue's partitions), filtered by the
 * table's name filter and sorted by the pane's sort column. The keys (row count, Enter's queue) and the panes read
 * the same view, so what is selected is what is shown.
 */
import {
  dlqColumns,
  dlqSummary,
  GROUP_COLUMNS,
  groupRows,
  meshColumns,
  meshRows,
  partitionColumns,
  partitionRows,
  QUEUE_COLUMNS,
  queueRows,
  REPLICA_COLUMNS,
  replicaRows,
} from './pane-rows.js'
import { clampSelection, filterRows, sortRows, type SortState, type TableColumn } from './table-model.js'
import type { TopData } from './top-data.js'
import { tableOf, type TableKey, type ViewState } from './view-state.js'

/** A table ready to render. */
export interface TableView<Row = unknown> {
  key: TableKey
  columns: TableColumn<Row>[]
  /** Rows after the filter, in sort order. */
  rows: Row[]
  /** Rows before the filter. */
  total: number
  sort: SortState
  /** The selected row's index, clamped to the rows. */
  selected: number
  /** False until the route behind the table answered. */
  loaded: boolean
}

function view<Row>(
  key: TableKey,
  state: ViewState,
  columns: TableColumn<Row>[],
  rows: Row[] | undefined,
  names: (row: Row) => string[],
): TableView {
  const sort = state.sort[key]
  const filtered = filterRows(rows ?? [], state.filter[key], names)
  const sorted = sortRows(filtered, columns, sort)
  const result: TableView<Row> = {
    key,
    columns,
    rows: sorted,
    total: rows?.length ?? 0,
    sort,
    selected: clampSelection(state.selected[key], sorted.length),
    loaded: rows !== undefined,
  }
  return result
}

/** The table the screen shows, or null on the Overview. */
export function tableView(data: TopData, state: ViewState, now: number): TableView | null {
  const key = tableOf(state)
  switch (key) {
    case null:
      return null
    case 'queues':
      return view(key, state, QUEUE_COLUMNS, data.routes.queues?.data && queueRows(data), (row) => [row.name])
    case 'partitions':
      return view(key, state, partitionColumns(now), partitionRows(data, state.drill ?? ''), (row) => [row.name])
    case 'groups':
      return view(key, state, GROUP_COLUMNS, data.routes.groups?.data && groupRows(data), (row) => [
        row.name,
        row.queueName,
      ])
    case 'dlq':
      return view(key, state, dlqColumns(now), dlqSummary(data)?.rows, (row) => [row.queue, row.group])
    case 'system':
      // "The current minute" is the answer's: the replica rows do not change between answers.
      return view(
        key,
        state,
        REPLICA_COLUMNS,
        data.routes.systemMetrics?.data && replicaRows(data, data.routes.systemMetrics.okAt ?? now),
        (row) => [row.serverId],
      )
    case 'mesh':
      return view(key, state, meshColumns(now), data.routes.mesh?.data && meshRows(data), (row) => [
        row.address,
        row.serverId ?? '',
      ])
  }
}

/** Whether the table on screen shows ages (`3 seconds ago`), so it must follow the clock. */
export function tableShowsAges(state: Pick<ViewState, 'pane' | 'drill'>): boolean {
  const key = tableOf(state)
  return key === 'partitions' || key === 'dlq' || key === 'mesh'
}

/** The queue under the cursor of the Queues table, or null. */
export function selectedQueueName(table: TableView | null): string | null {
  if (table?.key !== 'queues') return null
  const row = table.rows[table.selected] as { name?: unknown } | undefined
  return typeof row?.name === 'string' ? row.name : null
}
