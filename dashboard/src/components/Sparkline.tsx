/**
 * A sparkline: one series as a small inline SVG polyline (no chart instance per row, so a grid of a
 * thousand queues stays cheap), scaled to its own maximum, labelled for screen readers.
 */
const WIDTH = 96
const HEIGHT = 24

export function Sparkline({ values: given, label }: { values: readonly number[]; label: string }) {
  // One value is drawn as a level line: a polyline of one point shows nothing.
  const values = given.length === 1 ? [given[0]!, given[0]!] : given
  const max = Math.max(1, ...values)
  const step = values.length > 1 ? WIDTH / (values.length - 1) : WIDTH
  const points = values
    .map((value, index) => `${(index * step).toFixed(1)},${(HEIGHT - 1 - (value / max) * (HEIGHT - 2)).toFixed(1)}`)
    .join(' ')
  return (
    <svg
      className="sparkline"
      width={WIDTH}
      height={HEIGHT}
      viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
      role="img"
      aria-label={label}
    >
      <polyline points={points} fill="none" stroke="currentColor" strokeWidth="1.5" />
    </svg>
  )
}
