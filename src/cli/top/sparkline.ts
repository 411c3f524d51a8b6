/**
 * A sparkline: one block character per value, scaled to the largest value (`▁` for zero, so a quiet minute
 * still shows as a baseline).
 */
const BLOCKS = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'] as const

/** The sparkline of `values`; an empty string for no values. */
export function sparkline(values: readonly number[]): string {
  const max = Math.max(0, ...values)
  return values
    .map((value) => {
      if (max <= 0 || value <= 0) return BLOCKS[0]
      const level = Math.ceil((value / max) * (BLOCKS.length - 1))
      return BLOCKS[Math.min(BLOCKS.length - 1, Math.max(1, level))]
    })
    .join('')
}
