/** Command-line options of the bench's standalone scripts (top-cost.ts, lease-cost.ts). */

/** The positive integer after `--<name>` on the command line, or `fallback` when the option is absent. */
export function positiveIntOption(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`)
  if (index === -1) return fallback
  const value = Number(process.argv[index + 1])
  if (!Number.isInteger(value) || value <= 0) throw new Error(`--${name} must be a positive integer`)
  return value
}
