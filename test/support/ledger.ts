/**
 * The ledger of docs/reliability.md, "The ledger": every push and every delivery by id, and a checker that reports
 * lists of ids (never only counts): lost, unexpected, delivered twice after a confirmed ack, and order
 * inversions per (group, partition).
 *
 * The fault harness (issue 38) also records every answer of every attempt ({@link Ledger.answer}) and the
 * time and lease of each delivery and ack, and checks with {@link Ledger.audit}, in the spirit of Jepsen's
 * queue checker: lost, duplicated after ack, out of partition order, unexpected, plus leases granted twice.
 */

/** One push attempt's final outcome. */
export interface PushEntry {
  txId: string
  partition: string
  seq: number
  outcome: 'ok' | 'buffered' | 'fail' | 'unknown'
  /** When the first attempt was sent and the final answer received (ms since the epoch). */
  t0?: number
  t1?: number
}

/** One answer to one push attempt (or a transaction's push), as the client saw it. */
export interface AnswerEntry {
  txId: string
  /** `queued`, `buffered`, `duplicate`, `failed: <error>`, `error: <client error>`. */
  answer: string
  /** The broker that answered. */
  broker: string
  t: number
}

/** One confirmed ack. */
export interface AckEntry {
  txId: string
  group: string
  t: number
}

/** One delivery to a group. */
export interface DeliveryEntry {
  txId: string
  group: string
  partition: string
  leaseId?: string
  /** When the client received it (ms since the epoch). */
  t?: number
  /** When the client sent the pop that brought it: its lease cannot have begun earlier. */
  sent?: number
  broker?: string
}

/** What {@link Ledger.audit} finds for one group, as lists of ids. */
export interface AuditReport {
  group: string
  /** Pushes answered queued, duplicate or buffered (finally). */
  acknowledged: number
  delivered: number
  /** Acknowledged (or buffered), never delivered. */
  lost: string[]
  /** Delivered again after an ack the broker confirmed. */
  duplicatedAfterAck: string[]
  /** First deliveries whose seq went down within their partition. */
  outOfOrder: string[]
  /** Delivered, never pushed. */
  unexpected: string[]
  /** Delivered under a second lease before the first could have expired or been settled. */
  doubleLeases: string[]
  /** Delivered more than once, each time before an ack (allowed: at-least-once). */
  redelivered: string[]
  /** Outcome unknown to the producer, yet delivered. */
  recovered: string[]
  /** Answered failed (finally), yet delivered: the broker stored what it refused. */
  failedYetDelivered: string[]
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
/** What {@link Ledger.check} answers when `acknowledged` pushes were each delivered once, in order. */
export function cleanCheck(acknowledged: number): Partial<LedgerReport> {
  return { acknowledged, lost: [], unexpected: [], duplicates: [], inversions: [] }
}

export class Ledger {
  readonly pushes: PushEntry[] = []
  readonly deliveries: DeliveryEntry[] = []
  readonly answers: AnswerEntry[] = []
  readonly acks: AckEntry[] = []
  /** Per group and id: how many deliveries had been recorded when its ack was confirmed. */
  private readonly ackedAt = new Map<string, number>()

  push(entry: PushEntry): void {
    this.pushes.push(entry)
  }

  deliver(entry: DeliveryEntry): void {
    this.deliveries.push(entry)
  }

  /** Records the answer to one attempt. */
  answer(entry: AnswerEntry): void {
    this.answers.push(entry)
  }

  /** An ack the broker confirmed (per-item success); a later delivery of the id to the group is a violation. */
  acked(entry: { txId: string; group: string; t?: number }): void {
    const key = `${entry.group}\u0000${entry.txId}`
    if (!this.ackedAt.has(key)) this.ackedAt.set(key, this.deliveries.length)
    if (entry.t !== undefined) this.acks.push({ txId: entry.txId, group: entry.group, t: entry.t })
  }

  /**
   * The whole check of one group, for pushes selected by `expected` (the ids meant for this group). A
   * second delivery is a double lease when it arrived under another lease before the first lease could
   * have expired, and the first was not acked in between. The first lease began no earlier than the pop
   * that brought it was sent (`sent`); without that, no earlier than `slackMs` before it arrived. A pop's
   * answer delayed by a faulty network to PostgreSQL is thus not taken for a second lease.
   */
  audit(group: string, expected: (entry: PushEntry) => boolean, leaseMs: number, slackMs = 1000): AuditReport {
    const pushes = this.pushes.filter(expected)
    const acknowledged = pushes.filter((entry) => entry.outcome === 'ok' || entry.outcome === 'buffered')
    const known = new Set(pushes.filter((entry) => entry.outcome !== 'fail').map((entry) => entry.txId))
    const failed = new Set(pushes.filter((entry) => entry.outcome === 'fail').map((entry) => entry.txId))
    const unknown = new Set(pushes.filter((entry) => entry.outcome === 'unknown').map((entry) => entry.txId))
    const seqOf = new Map(pushes.map((entry) => [entry.txId, entry.seq]))
    const delivered = this.deliveries.filter((entry) => entry.group === group)
    const byId = new Map<string, DeliveryEntry[]>()
    for (const entry of delivered) byId.set(entry.txId, [...(byId.get(entry.txId) ?? []), entry])
    const firstAck = new Map<string, number>()
    for (const ack of this.acks) if (ack.group === group && !firstAck.has(ack.txId)) firstAck.set(ack.txId, ack.t)

    const outOfOrder: string[] = []
    const lastSeq = new Map<string, number>()
    const seen = new Set<string>()
    for (const entry of delivered) {
      if (seen.has(entry.txId)) continue
      seen.add(entry.txId)
      const seq = seqOf.get(entry.txId)
      if (seq === undefined) continue
      const previous = lastSeq.get(entry.partition)
      if (previous !== undefined && seq < previous) outOfOrder.push(entry.txId)
      lastSeq.set(entry.partition, seq)
    }

    const doubleLeases: string[] = []
    for (const [txId, entries] of byId) {
      for (let index = 1; index < entries.length; index++) {
        const before = entries[index - 1]!
        const after = entries[index]!
        if (before.t === undefined || after.t === undefined || before.leaseId === after.leaseId) continue
        const acked = firstAck.get(txId)
        const settledBetween = acked !== undefined && acked >= before.t && acked <= after.t
        const firstLeaseBegan = before.sent ?? before.t - slackMs
        if (!settledBetween && after.t < firstLeaseBegan + leaseMs) doubleLeases.push(txId)
      }
    }
    return {
      group,
      acknowledged: acknowledged.length,
      delivered: delivered.length,
      lost: acknowledged.filter((entry) => !byId.has(entry.txId)).map((entry) => entry.txId),
      duplicatedAfterAck: [...new Set(this.deliveredAfterAck(group))],
      outOfOrder,
      unexpected: [...byId.keys()].filter((id) => !known.has(id) && !failed.has(id)),
      doubleLeases: [...new Set(doubleLeases)],
      redelivered: [...byId.entries()].filter(([, entries]) => entries.length > 1).map(([id]) => id),
      recovered: [...byId.keys()].filter((id) => unknown.has(id)),
      failedYetDelivered: [...byId.keys()].filter((id) => failed.has(id)),
    }
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
