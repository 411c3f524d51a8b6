/**
 * The dashboard's data as React state: a TopPoller on the source, started on mount and stopped on unmount,
 * feeding the pure reducers of top-data.ts; it follows the screen (pane, drill-in), the interval and
 * pause, and polls at once when the screen changes.
 */
import { useCallback, useEffect, useRef, useState } from 'react'
import { TopPoller } from '../cli/top/poller.js'
import type { PaneKey, RouteAnswers, RouteKey } from '../cli/top/routes.js'
import { answerArrived, initialData, requestFailed, type TopData } from '../cli/top/top-data.js'
import type { TopSource } from '../cli/top/top-source.js'

/** What the poller follows. */
export interface PollerSettings {
  pane: PaneKey
  drill: string | null
  intervalMs: number
  paused: boolean
}

/** The data, and what a change made from the dashboard (a maintenance write) needs. */
export interface TopPolling {
  data: TopData
  /** Applies what the broker confirmed at once, ahead of the next answer. */
  amend: (step: (data: TopData) => TopData) => void
  /** Asks `key` again, dropping an answer that was asked before the change. */
  reread: (key: RouteKey) => void
}

/**
 * Answers arriving within this many ms are applied in one state update: a tick's half-dozen answers then
 * cost one render instead of one each (measured: the Queues pane of 1,000 queues re-rendered ~7 times per
 * tick before).
 */
const COALESCE_MS = 50

type Step = (data: TopData) => TopData

export function useTopPoller(source: TopSource, settings: PollerSettings): TopPolling {
  const [data, setData] = useState(() => initialData(Date.now()))
  const screen = useRef({ pane: settings.pane, drill: settings.drill })
  const poller = useRef<TopPoller | null>(null)
  const amendNow = useRef<(step: Step) => void>(() => undefined)
  const { pane, drill, intervalMs, paused } = settings

  useEffect(() => {
    let steps: Step[] = []
    let flush: NodeJS.Timeout | undefined
    const flushNow = () => {
      const batch = steps
      steps = []
      clearTimeout(flush)
      flush = undefined
      setData((previous) => batch.reduce((current, next) => next(current), previous))
    }
    const apply = (step: Step) => {
      steps.push(step)
      flush ??= setTimeout(flushNow, COALESCE_MS)
    }
    const instance = new TopPoller({
      fetch: (request) => source.fetch(request),
      screen: () => ({ pane: screen.current.pane, drilledQueue: screen.current.drill }),
      onAnswer: (key: RouteKey, answer: unknown, at: number) =>
        apply((previous) => answerArrived(previous, key, answer as RouteAnswers[typeof key], at)),
      onFailure: (key, error, at) => apply((previous) => requestFailed(previous, key, error, at)),
      intervalMs,
    })
    poller.current = instance
    amendNow.current = (step) => {
      steps.push(step)
      flushNow()
    }
    instance.start()
    return () => {
      instance.stop()
      clearTimeout(flush)
      poller.current = null
    }
    // The interval is followed by the effect below; a new interval must not restart the poller.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [source])

  useEffect(() => {
    poller.current?.setIntervalMs(intervalMs)
  }, [intervalMs])

  useEffect(() => {
    poller.current?.setPaused(paused)
  }, [paused])

  useEffect(() => {
    const changed = screen.current.pane !== pane || screen.current.drill !== drill
    screen.current = { pane, drill }
    if (changed) poller.current?.pollNow()
  }, [pane, drill])

  const reread = useCallback((key: RouteKey) => poller.current?.reread(key), [])
  // Behind the answers already queued (an answer that landed before the change cannot overwrite it), and at
  // once, so it renders in the same frame as the notice that reports the change.
  const amend = useCallback((step: Step) => amendNow.current(step), [])
  return { data, amend, reread }
}
