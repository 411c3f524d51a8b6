/**
 * A line chart of several series over time (uPlot, as ThroughputChart: dashboard/README.md says why). Each
 * series names a CSS variable for its colour, so the chart follows the theme; its size follows its container.
 * The chart is drawn for sighted users; `label` says the same in words for everyone else.
 */
import { useEffect, useRef } from 'react'
import uPlot from 'uplot'
import type { Theme } from '../theme'

/** One line. */
export interface Series {
  label: string
  /** A CSS variable of styles.css, e.g. `--chart-1`. */
  color: string
  values: (number | null)[]
}

const HEIGHT_PX = 240
/** Tick steps of a count axis. */
const INTEGER_STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 1e4, 2e4, 5e4, 1e5, 1e6, 1e7, 1e8, 1e9]

export function TimeSeriesChart(props: {
  /** Epoch seconds, ascending, one per value of every series. */
  times: number[]
  series: Series[]
  theme: Theme
  label: string
  format: (value: number) => string
  /** The window shown, ms, ending now (default: the data's own span; one point alone needs it). */
  windowMs?: number
  /** Whole numbers (counts): the value axis ticks only at integers. */
  integer?: boolean
}) {
  const container = useRef<HTMLDivElement>(null)
  const windowMs = useRef(props.windowMs)
  const chart = useRef<uPlot | null>(null)
  const { format } = props
  const shape = props.series.map((series) => `${series.label}:${series.color}`).join('|')

  useEffect(() => {
    const element = container.current
    if (element === null) return
    const style = getComputedStyle(element)
    const color = (name: string) => style.getPropertyValue(name).trim()
    const axis: uPlot.Axis = {
      stroke: color('--text-muted'),
      grid: { stroke: color('--border'), width: 1 },
      ticks: { stroke: color('--border'), width: 1 },
    }
    const plot = new uPlot(
      {
        width: Math.max(200, element.clientWidth),
        height: HEIGHT_PX,
        series: [
          {},
          ...props.series.map((series) => ({
            label: series.label,
            stroke: color(series.color),
            width: 2,
            value: (_: uPlot, value: number | null) => (value === null ? '–' : format(value)),
          })),
        ],
        axes: [
          axis,
          {
            ...axis,
            values: (_: uPlot, ticks: number[]) => ticks.map(format),
            size: 80,
            ...(props.integer ? { incrs: INTEGER_STEPS } : {}),
          },
        ],
        scales: {
          x: {
            time: true,
            range: (_: uPlot, min: number, max: number) =>
              windowMs.current === undefined
                ? [min, max]
                : [Date.now() / 1000 - windowMs.current / 1000, Date.now() / 1000],
          },
          y: { range: (_: uPlot, min: number, max: number) => [0, Math.max(1, max, min)] },
        },
        cursor: { drag: { x: false, y: false } },
      },
      [[], ...props.series.map(() => [])],
      element,
    )
    chart.current = plot
    const observer = new ResizeObserver(() =>
      plot.setSize({ width: Math.max(200, element.clientWidth), height: HEIGHT_PX }),
    )
    observer.observe(element)
    return () => {
      observer.disconnect()
      plot.destroy()
      chart.current = null
    }
    // Rebuilt when the theme or the set of series changes; new values go through setData below.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [props.theme, shape])

  useEffect(() => {
    windowMs.current = props.windowMs
    chart.current?.setData([props.times, ...props.series.map((series) => series.values)])
  }, [props.times, props.series, props.theme, props.windowMs, shape])

  return <div ref={container} className="chart" role="img" aria-label={props.label} />
}
