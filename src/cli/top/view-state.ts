/**
 * The dashboard's screen state and its keys (docs/cli.md, "The top dashboard") as one pure reducer: a key press and
 * what the screen shows (row count, columns, the flags) in, the next state and at most one effect out. The effects
 * (quit, a new interval, pause, a maintenance change) are carried out by the UI; the poller follows pane and drill-in
 * changes by itself.
 */
import { PANES, type PaneKey } from './routes.js'
import { clampSelection, type SortState } from './table-model.js'

/** The tables that can be moved in, sorted and filtered. */
export type TableKey = 'queues' | 'partitions' | 'groups' | 'dlq' | 'system' | 'mesh'

/** A maintenance flag. */
export type MaintenanceKind = 'push' | 'pop'

/** Everything about the screen that is not broker data. */
export interface ViewState {
  pane: PaneKey
  /** The queue whose partitions are open in the Queues pane, or null. */
  drill: string | null
  selected: Record<TableKey, number>
  sort: Record<TableKey, SortState>
  /** Name filter of each table (case-insensitive substring); `--queue` sets the queue-named ones. */
  filter: Record<TableKey, string>
  /** True while `/` is collecting the filter of the table on screen. */
  editingFilter: boolean
  paused: boolean
  /** Poll interval, ms (at least MIN_INTERVAL_MS). */
  intervalMs: number
  /** A maintenance change waiting for y/n. */
  confirm: { kind: MaintenanceKind; enabled: boolean } | null
  help: boolean
  /** A one-line message in the key bar (the result of a maintenance change, a refusal). */
  notice: { text: string; error: boolean } | null
}

/** A key press, as Ink reports it. */
export interface KeyPress {
  input: string
  upArrow?: boolean
  downArrow?: boolean
  pageUp?: boolean
  pageDown?: boolean
  return?: boolean
  escape?: boolean
  tab?: boolean
  shift?: boolean
  ctrl?: boolean
  meta?: boolean
  backspace?: boolean
  delete?: boolean
}

/** What the screen shows, which some keys depend on. */
export interface KeyContext {
  /** The table on screen, or null (Overview). */
  table: TableKey | null
  /** Rows of that table after filtering. */
  rowCount: number
  /** Its columns (for `s`). */
  columnCount: number
  /** Rows visible at once (PageUp/PageDown). */
  pageSize: number
  /** Name of the queue under the cursor in the Queues pane, for Enter. */
  selectedQueue: string | null
  /** The maintenance flags as last read, or null before the first answer. */
  maintenance: { push: boolean; pop: boolean } | null
}

/** Something the UI must do after a key. */
export type ViewEffect =
  | { type: 'quit' }
  | { type: 'interval'; intervalMs: number }
  | { type: 'paused'; paused: boolean }
  | { type: 'maintenance'; kind: MaintenanceKind; enabled: boolean }

/** The reducer's result. */
export interface KeyResult {
  state: ViewState
  effect?: ViewEffect
}

/** Shortest poll interval (docs/cli.md, "The top dashboard"). */
export const MIN_INTERVAL_MS = 500
/** Default poll interval. */
export const DEFAULT_INTERVAL_MS = 2000
/** The intervals `+` and `-` step through. */
export const INTERVAL_STEPS_MS = [500, 1000, 2000, 5000, 10_000, 30_000, 60_000] as const

const TABLES: TableKey[] = ['queues', 'partitions', 'groups', 'dlq', 'system', 'mesh']

/**
 * The first screen: `pane`, `filter` (from --queue: the Queues, Groups and DLQ tables start filtered by it)
 * and `intervalMs` (from --interval).
 */
export function initialView(options: { pane?: PaneKey; filter?: string; intervalMs?: number } = {}): ViewState {
  const table = <T>(value: () => T) => Object.fromEntries(TABLES.map((key) => [key, value()])) as Record<TableKey, T>
  const queueFilter = options.filter ?? ''
  return {
    pane: options.pane ?? 'overview',
    drill: null,
    selected: table(() => 0),
    sort: table(() => ({ column: 0, descending: false })),
    filter: { ...table(() => ''), queues: queueFilter, groups: queueFilter, dlq: queueFilter },
    editingFilter: false,
    paused: false,
    intervalMs: Math.max(MIN_INTERVAL_MS, options.intervalMs ?? DEFAULT_INTERVAL_MS),
    confirm: null,
    help: false,
    notice: null,
  }
}

/** The table a screen state shows, or null for the Overview. */
export function tableOf(state: Pick<ViewState, 'pane' | 'drill'>): TableKey | null {
  switch (state.pane) {
    case 'overview':
      return null
    case 'queues':
      return state.drill === null ? 'queues' : 'partitions'
    case 'groups':
    case 'dlq':
    case 'system':
    case 'mesh':
      return state.pane
  }
}

function nextInterval(current: number, direction: 1 | -1): number {
  if (direction === 1) return INTERVAL_STEPS_MS.find((step) => step > current) ?? current
  return [...INTERVAL_STEPS_MS].reverse().find((step) => step < current) ?? current
}

function switchPane(state: ViewState, pane: PaneKey): KeyResult {
  if (pane === state.pane) return { state }
  return { state: { ...state, pane, help: false } }
}

function moveSelection(state: ViewState, context: KeyContext, delta: number): KeyResult {
  if (context.table === null) return { state }
  const current = state.selected[context.table]
  const selected = clampSelection(current + delta, context.rowCount)
  return { state: { ...state, selected: { ...state.selected, [context.table]: selected } } }
}

/** The filter of the table on screen, '' on the Overview. */
export function filterOf(state: ViewState): string {
  const table = tableOf(state)
  return table === null ? '' : state.filter[table]
}

/** The state with the filter of the table on screen set (its selection back on the first row). */
function withFilter(state: ViewState, filter: string): ViewState {
  const table = tableOf(state)
  if (table === null) return state
  return { ...state, filter: { ...state.filter, [table]: filter }, selected: { ...state.selected, [table]: 0 } }
}

function editFilter(state: ViewState, key: KeyPress): KeyResult {
  const filter = filterOf(state)
  if (key.return) return { state: { ...state, editingFilter: false } }
  if (key.escape) return { state: withFilter({ ...state, editingFilter: false }, '') }
  if (key.backspace || key.delete) return { state: withFilter(state, filter.slice(0, -1)) }
  if (key.ctrl || key.meta || key.tab || key.input === '' || [...key.input].some((char) => char < ' ')) return { state }
  return { state: withFilter(state, filter + key.input) }
}

function askMaintenance(state: ViewState, context: KeyContext, kind: MaintenanceKind): KeyResult {
  if (context.maintenance === null) {
    return { state: { ...state, notice: { text: 'the maintenance flags have not been read yet', error: true } } }
  }
  return { state: { ...state, confirm: { kind, enabled: !context.maintenance[kind] }, notice: null } }
}

/** The screen after a key press, and what the UI must do. */
export function reduceKey(state: ViewState, key: KeyPress, context: KeyContext): KeyResult {
  if (key.ctrl && key.input === 'c') return { state, effect: { type: 'quit' } }
  if (state.confirm) {
    const { kind, enabled } = state.confirm
    if (key.input === 'y' || key.input === 'Y') {
      return { state: { ...state, confirm: null }, effect: { type: 'maintenance', kind, enabled } }
    }
    return { state: { ...state, confirm: null, notice: { text: `${kind}-maintenance left unchanged`, error: false } } }
  }
  if (state.editingFilter) return editFilter(state, key)
  if (state.help && (key.input === '?' || key.escape)) return { state: { ...state, help: false } }
  const cleared = state.notice ? { ...state, notice: null } : state

  if (key.tab) {
    const index = PANES.indexOf(state.pane)
    const next = (index + (key.shift ? PANES.length - 1 : 1)) % PANES.length
    return switchPane(cleared, PANES[next]!)
  }
  if (key.upArrow || key.input === 'k') return moveSelection(cleared, context, -1)
  if (key.downArrow || key.input === 'j') return moveSelection(cleared, context, 1)
  if (key.pageUp) return moveSelection(cleared, context, -Math.max(1, context.pageSize))
  if (key.pageDown) return moveSelection(cleared, context, Math.max(1, context.pageSize))
  if (key.return) {
    if (state.pane !== 'queues' || state.drill !== null || context.selectedQueue === null) return { state: cleared }
    return { state: { ...cleared, drill: context.selectedQueue, selected: { ...cleared.selected, partitions: 0 } } }
  }
  if (key.escape) {
    if (state.help) return { state: { ...cleared, help: false } }
    if (state.pane === 'queues' && state.drill !== null) {
      return { state: { ...cleared, drill: null } }
    }
    return { state: withFilter(cleared, '') }
  }
  if (key.ctrl || key.meta) return { state: cleared }

  const pane = /^[1-6]$/.test(key.input) ? PANES[Number(key.input) - 1] : undefined
  if (pane) return switchPane(cleared, pane)
  switch (key.input) {
    case 'q':
      return { state: cleared, effect: { type: 'quit' } }
    case '?':
      return { state: { ...cleared, help: !state.help } }
    case '/':
      return { state: { ...cleared, editingFilter: tableOf(state) !== null } }
    case 's': {
      if (context.table === null || context.columnCount === 0) return { state: cleared }
      const sort = cleared.sort[context.table]
      const column = (sort.column + 1) % context.columnCount
      return { state: { ...cleared, sort: { ...cleared.sort, [context.table]: { ...sort, column } } } }
    }
    case 'r': {
      if (context.table === null) return { state: cleared }
      const sort = cleared.sort[context.table]
      return {
        state: { ...cleared, sort: { ...cleared.sort, [context.table]: { ...sort, descending: !sort.descending } } },
      }
    }
    case 'p':
      return { state: { ...cleared, paused: !state.paused }, effect: { type: 'paused', paused: !state.paused } }
    case '+':
    case '=':
    case '-': {
      const intervalMs = nextInterval(state.intervalMs, key.input === '-' ? -1 : 1)
      if (intervalMs === state.intervalMs) return { state: cleared }
      return { state: { ...cleared, intervalMs }, effect: { type: 'interval', intervalMs } }
    }
    case 'm':
      return askMaintenance(cleared, context, 'push')
    case 'M':
      return askMaintenance(cleared, context, 'pop')
    default:
      return { state: cleared }
  }
}
