/**
 * The in-memory side of metering (docs/gateway.md, "Metering"): counts per tenant per UTC hour since the last flush.
 * A flush takes them all (`drain`) and gives them back when the write fails (`restore`), so a count is lost only
 * when the process dies between two flushes.
 */

/** What is counted. */
export interface UsageCounts {
  requests: number
  messagesPushed: number
  messagesDelivered: number
  messagesAcked: number
  bytesIn: number
  bytesOut: number
}

/** One tenant's counts for one hour. */
export interface UsageRow extends UsageCounts {
  readonly tenantId: string
  /** The hour's start, ms since the epoch. */
  readonly hour: number
}

const HOUR_MS = 3_600_000

export function emptyCounts(): UsageCounts {
  return { requests: 0, messagesPushed: 0, messagesDelivered: 0, messagesAcked: 0, bytesIn: 0, bytesOut: 0 }
}

export class UsageMeter {
  private rows = new Map<string, UsageRow>()
  private readonly now: () => number

  constructor(now: () => number = Date.now) {
    this.now = now
  }

  /** Adds `delta` to the tenant's counts of the current hour. */
  add(tenantId: string, delta: Partial<UsageCounts>): void {
    const hour = Math.floor(this.now() / HOUR_MS) * HOUR_MS
    const key = `${tenantId}\u0000${hour}`
    let row = this.rows.get(key)
    if (!row) {
      row = { tenantId, hour, ...emptyCounts() }
      this.rows.set(key, row)
    }
    for (const [name, value] of Object.entries(delta) as [keyof UsageCounts, number][]) row[name] += value
  }

  /** Takes every row counted since the previous drain. */
  drain(): UsageRow[] {
    const taken = [...this.rows.values()]
    this.rows = new Map()
    return taken
  }

  /** Gives back rows a failed flush could not write; they are added to what was counted meanwhile. */
  restore(rows: readonly UsageRow[]): void {
    for (const row of rows) {
      const key = `${row.tenantId}\u0000${row.hour}`
      const current = this.rows.get(key)
      if (!current) {
        this.rows.set(key, { ...row })
        continue
      }
      for (const name of Object.keys(emptyCounts()) as (keyof UsageCounts)[]) current[name] += row[name]
    }
  }
}
