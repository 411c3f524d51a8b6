/**
 * The scaling report's charts: one SVG line chart per series, drawn by vega-lite (compiled to a vega spec)
 * and rendered headless by vega's SVG renderer, so no canvas or browser is needed.
 */
import * as vega from 'vega'
import { compile, type TopLevelSpec } from 'vega-lite'

/** One point of one line. */
export interface ChartRow {
  x: number
  y: number
  /** The line's legend label, e.g. `ours p50`. */
  line: string
}

export interface LineChart {
  title: string
  xTitle: string
  yTitle: string
  /** Log scale on x (sizes spanning decades: partitions, groups, parked polls). */
  xLog?: boolean
  /** Log scale on y (latencies or rates spanning decades). */
  yLog?: boolean
  rows: ChartRow[]
}

/** Renders `chart` to an SVG document. */
export async function renderLineChart(chart: LineChart): Promise<string> {
  const rows = chart.rows.filter((row) => Number.isFinite(row.x) && Number.isFinite(row.y))
  const spec: TopLevelSpec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: chart.title,
    width: 520,
    height: 300,
    background: 'white',
    data: { values: rows },
    mark: { type: 'line', point: true },
    encoding: {
      x: {
        field: 'x',
        type: 'quantitative',
        title: chart.xTitle,
        scale: chart.xLog ? { type: 'log' } : { zero: true },
        axis: { format: '~s' },
      },
      y: {
        field: 'y',
        type: 'quantitative',
        title: chart.yTitle,
        scale: chart.yLog ? { type: 'log' } : { zero: true },
        axis: { format: '~s' },
      },
      color: { field: 'line', type: 'nominal', title: null },
      tooltip: [
        { field: 'line', type: 'nominal' },
        { field: 'x', type: 'quantitative' },
        { field: 'y', type: 'quantitative', format: ',.1f' },
      ],
    },
  }
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' })
  try {
    return await view.toSVG()
  } finally {
    view.finalize()
  }
}
