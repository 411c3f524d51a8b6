/**
 * The root of `queenctl top`: owns the screen state, turns key presses into it through the pure reducer
 * of view-state.ts, carries out the effects (quit, maintenance writes) and renders
 * the TopScreen. Its one exit path is the quit effect (`q`, Ctrl-C).
 */
import { useApp, useInput } from 'ink'
import { useLayoutEffect, useMemo, useRef, useState } from 'react'
import { coerceMessage } from '../cli/top/route-state.js'
import { selectedQueueName, tableShowsAges, tableView } from '../cli/top/table-view.js'
import { maintenanceWritten } from '../cli/top/top-data.js'
import type { TopSource } from '../cli/top/top-source.js'
import { reduceKey, type KeyContext, type ViewEffect, type ViewState } from '../cli/top/view-state.js'
import { TopScreen } from './TopScreen.js'
import { ThemeContext } from './theme.js'
import { useClock } from './use-clock.js'
import { useTerminalSize } from './use-terminal-size.js'
import { useTopPoller } from './use-top-poller.js'

/** Lines of the screen that are not table rows: header, tabs, title, table header, status, keys, cursor. */
const NON_ROW_LINES = 7

export interface TopAppProps {
  source: TopSource
  initialView: ViewState
  color: boolean
}

export function TopApp({ source, initialView, color }: TopAppProps) {
  const { exit } = useApp()
  const size = useTerminalSize()
  const now = useClock(1000)
  const [view, setView] = useState(initialView)
  const { data, amend, reread } = useTopPoller(source, {
    pane: view.pane,
    drill: view.drill,
    intervalMs: view.intervalMs,
    paused: view.paused,
  })
  // Tables showing ages follow the clock; the others are rebuilt only when data or the view change (the
  // Queues table of 1,000 queues would otherwise be rebuilt and sorted every second for nothing).
  const tableNow = tableShowsAges(view) ? now : 0
  const table = useMemo(() => tableView(data, view, tableNow), [data, view, tableNow])
  const theme = useMemo(() => ({ color }), [color])

  const perform = (effect: ViewEffect | undefined) => {
    switch (effect?.type) {
      case undefined:
      case 'interval':
      case 'paused':
        // The poller follows the interval and pause through the view state.
        return
      case 'quit':
        exit()
        return
      case 'maintenance':
        source.setMaintenance(effect.kind, effect.enabled).then(
          (message) => {
            amend((current) => maintenanceWritten(current, effect.kind, effect.enabled, Date.now()))
            setView((current) => ({ ...current, notice: { text: message, error: false } }))
            reread('maintenance')
          },
          (error: unknown) => {
            const text = `${effect.kind}-maintenance not changed: ${coerceMessage(error)}`
            setView((current) => ({ ...current, notice: { text, error: true } }))
          },
        )
    }
  }

  // Keys read the screen as last drawn (a layout effect runs with the commit that writes the frame), so a key
  // pressed right after a frame acts on what that frame shows.
  const drawn = useRef({ view, table, data, rows: size.rows })
  useLayoutEffect(() => {
    drawn.current = { view, table, data, rows: size.rows }
  })

  useInput((input, key) => {
    const { view, table, data, rows } = drawn.current
    const maintenance = data.routes.maintenance?.data
    const context: KeyContext = {
      table: table?.key ?? null,
      rowCount: table?.rows.length ?? 0,
      columnCount: table?.columns.length ?? 0,
      pageSize: Math.max(1, rows - NON_ROW_LINES),
      selectedQueue: selectedQueueName(table),
      maintenance: maintenance ? { push: maintenance.maintenanceMode, pop: maintenance.popMaintenanceMode } : null,
    }
    const result = reduceKey(view, { input, ...key }, context)
    drawn.current = { ...drawn.current, view: result.state }
    setView(result.state)
    perform(result.effect)
  })

  return (
    <ThemeContext.Provider value={theme}>
      <TopScreen data={data} view={view} table={table} server={source.server} size={size} now={now} />
    </ThemeContext.Provider>
  )
}
