/**
 * The ledger of docs/reliability.md, "The ledger": every push and every delivery by id, and a checker that reports
 * lists of ids (never only counts): lost, unexpected, delivered twice after a confirmed ack, and order
 * inversions per (group, partition).
 */

/** One push attempt's final outcome. */
export interface PushEntry {
  txId: string
  partition: string
  seq: number
  outcome: 'ok' | 'buffered' | 'fail' | 'unknown'
}

/** One delivery to a group. */
export interface DeliveryEntry {
  txId: string
  group: string
  partition: string
}

/** The checker's report. */
export interface LedgerReport {
  acknowledged: number
  delivered: number
  lost: string[]
  unexpected: string[]
  duplicates: string[]
  inversions: string[]
}

/** Records pushes and deliveries, then checks them. */
export class Ledger {
  readonly pushes: PushEntry[] = []
  readonly deliveries: DeliveryEntry[] = []
  /** Per group and id: how many deliveries had been recorded when its ack was confirmed. */
  private readonly ackedAt = new Map<string, number>()

  push(entry: PushEntry): void {
    this.pushes.push(entry)
  }

  deliver(entry: DeliveryEntry): void {
    this.deliveries.push(entry)
  }

  /** An ack the broker confirmed (per-item success); a later delivery of the id to the group is a violation. */
  acked(entry: { txId: string; group: string }): void {
    const key = `${entry.group}\u0000${entry.txId}`
    if (!this.ackedAt.has(key)) this.ackedAt.set(key, this.deliveries.length)
  }

  /** Ids delivered to `group` again after their ack was confirmed (at-least-once allows redelivery only before). */
  deliveredAfterAck(group: string): string[] {
    const late: string[] = []
    this.deliveries.forEach((entry, index) => {
      const at = this.ackedAt.get(`${group}\u0000${entry.txId}`)
      if (entry.group === group && at !== undefined && index >= at) late.push(entry.txId)
    })
    return late
  }

  /** Checks one group: every acknowledged push delivered exactly once, nothing unknown, order kept. */
  check(group: string): LedgerReport {
    const acknowledged = this.pushes.filter((entry) => entry.outcome === 'ok' || entry.outcome === 'buffered')
    const pushedIds = new Set(this.pushes.filter((entry) => entry.outcome !== 'fail').map((entry) => entry.txId))
    const seqOf = new Map(this.pushes.map((entry) => [entry.txId, entry.seq]))
    const delivered = this.deliveries.filter((entry) => entry.group === group)
    const counts = new Map<string, number>()
    for (const entry of delivered) counts.set(entry.txId, (counts.get(entry.txId) ?? 0) + 1)
    const inversions: string[] = []
    const lastSeq = new Map<string, number>()
    const seen = new Set<string>()
    for (const entry of delivered) {
      if (seen.has(entry.txId)) continue
      seen.add(entry.txId)
      const seq = seqOf.get(entry.txId)
      if (seq === undefined) continue
      const previous = lastSeq.get(entry.partition)
      if (previous !== undefined && seq < previous) inversions.push(entry.txId)
      lastSeq.set(entry.partition, seq)
    }
    return {
      acknowledged: acknowledged.length,
      delivered: delivered.length,
      lost: acknowledged.filter((entry) => !counts.has(entry.txId)).map((entry) => entry.txId),
      unexpected: [...counts.keys()].filter((id) => !pushedIds.has(id)),
      duplicates: [...counts.entries()].filter(([, count]) => count > 1).map(([id]) => id),
      inversions,
    }
  }
}
