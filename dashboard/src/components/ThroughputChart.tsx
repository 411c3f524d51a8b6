/**
 * Push, pop and ack rates over the window as a line chart (uPlot: canvas, about 50 kB minified, maintained,
 * no dependencies; dashboard/README.md says why). Colours come from the theme's CSS variables, so the chart
 * is rebuilt when the theme changes; its size follows its container.
 */
import { useEffect, useRef } from 'react'
import uPlot from 'uplot'
import type { ThroughputPoint } from '../../../src/wire/index.js'
import { formatRate } from '../format'
import type { Theme } from '../theme'

const SERIES = [
  { label: 'push/s', key: 'ingestedPerSecond', color: '--chart-push' },
  { label: 'pop/s', key: 'popPerSecond', color: '--chart-pop' },
  { label: 'ack/s', key: 'processedPerSecond', color: '--chart-ack' },
] as const

const HEIGHT_PX = 240

function columns(points: readonly ThroughputPoint[]): uPlot.AlignedData {
  const sorted = [...points].sort((a, b) => a.timestamp.localeCompare(b.timestamp))
  return [
    sorted.map((point) => Date.parse(point.timestamp) / 1000),
    ...SERIES.map((series) => sorted.map((point) => point[series.key])),
  ]
}

export function ThroughputChart({
  points,
  theme,
  label,
}: {
  points: readonly ThroughputPoint[]
  theme: Theme
  label: string
}) {
  const container = useRef<HTMLDivElement>(null)
  const chart = useRef<uPlot | null>(null)

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
          ...SERIES.map((series) => ({
            label: series.label,
            stroke: color(series.color),
            width: 2,
            points: { show: false },
            value: (_: uPlot, value: number | null) => (value === null ? '–' : formatRate(value)),
          })),
        ],
        axes: [
          axis,
          { ...axis, values: (_: uPlot, ticks: number[]) => ticks.map((tick) => formatRate(tick)), size: 70 },
        ],
        scales: { y: { range: (_: uPlot, min: number, max: number) => [0, Math.max(1, max, min)] } },
        cursor: { drag: { x: false, y: false } },
      },
      [[], [], [], []],
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
  }, [theme])

  useEffect(() => {
    chart.current?.setData(columns(points))
  }, [points, theme])

  return <div ref={container} className="chart" role="img" aria-label={label} />
}
