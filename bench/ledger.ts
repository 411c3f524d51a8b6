/**
 * Per-message accounting of one scenario run (docs/performance.md, "What every run measures": correctness in every
 * run): every message the system accepted and every delivery to every consumer group, by (producer, seq), so lost and
 * duplicated messages are counted by id rather than by reconciling totals. A run with lost > 0 or duplicates > 0 fails
 * the benchmark whatever its speed.
 *
 * Memory: one byte per message and group (producers number their messages densely from 0), so a run of
 * millions of messages costs megabytes, not the hundreds a Set of id strings would.
 */

const NOT_SENT = 0
const ACCEPTED = 1
const REFUSED = 2

class ByteTrack {
  bytes = new Uint8Array(1024)

  get(seq: number): number {
    return seq < this.bytes.length ? (this.bytes[seq] ?? 0) : 0
  }

  set(seq: number, value: number): void {
    if (seq >= this.bytes.length) {
      let size = this.bytes.length
      while (size <= seq) size *= 2
      const grown = new Uint8Array(size)
      grown.set(this.bytes)
      this.bytes = grown
    }
    this.bytes[seq] = value
  }
}

/** The counts a scenario reports. */
export interface LedgerCheck {
  /** Messages the system accepted (push answered queued/buffered, insert committed, publish confirmed). */
  accepted: number
  /** Messages the system refused (failed push items): errors, not losses. */
  refused: number
  /** Deliveries per group, duplicates included. */
  delivered: number
  /** Accepted messages some group never received. */
  lost: number
  /** Deliveries beyond the first of one message to one group. */
  duplicates: number
  /** Deliveries of messages that were never sent (another run's, or garbage). */
  unexpected: number
  /**
   * Messages whose push failed (an error or a timeout, so the outcome was unknown) that were stored anyway:
   * reported, not a failure, since the producer never had an answer to rely on.
   */
  storedAfterRefusal: number
  /** A few lost ids, `producer.seq`, for the report. */
  lostSample: string[]
}

/** Records what was accepted and what each group received. */
export class Ledger {
  private readonly sent: ByteTrack[] = []
  private readonly received = new Map<string, ByteTrack[]>()
  private readonly distinct = new Map<string, number>()
  private acceptedCount = 0
  private refusedCount = 0
  private unexpectedCount = 0
  private deliveredCount = 0
  private duplicateCount = 0

  /** The consumer groups whose deliveries are checked (queue mode is one group). */
  readonly groups: readonly string[]

  constructor(groups: readonly string[]) {
    this.groups = groups
    for (const group of groups) {
      this.received.set(group, [])
      this.distinct.set(group, 0)
    }
  }

  /** Records the outcome of one message. */
  send(producer: number, seq: number, accepted: boolean): void {
    const track = (this.sent[producer] ??= new ByteTrack())
    const previous = track.get(seq)
    if (previous === ACCEPTED) return
    track.set(seq, accepted ? ACCEPTED : REFUSED)
    if (accepted) this.acceptedCount++
    else if (previous === NOT_SENT) this.refusedCount++
  }

  /** Records one delivery to a group; returns false for a duplicate or unexpected delivery. */
  receive(group: string, producer: number, seq: number): boolean {
    const tracks = this.received.get(group)
    if (!tracks) throw new Error(`ledger: unknown group ${group}`)
    this.deliveredCount++
    if (!Number.isInteger(producer) || !Number.isInteger(seq) || producer < 0 || seq < 0) {
      this.unexpectedCount++
      return false
    }
    // A delivery can overtake its push answer (the consumer sees the row before the producer sees "queued"),
    // so deliveries of messages not (yet) accepted are reconciled in check(), not here.
    const track = (tracks[producer] ??= new ByteTrack())
    const count = track.get(seq)
    track.set(seq, Math.min(255, count + 1))
    if (count > 0) {
      this.duplicateCount++
      return false
    }
    this.distinct.set(group, (this.distinct.get(group) ?? 0) + 1)
    return true
  }

  get accepted(): number {
    return this.acceptedCount
  }

  /** Distinct messages a group has received so far. */
  receivedBy(group: string): number {
    return this.distinct.get(group) ?? 0
  }

  /** True when every group has received as many distinct messages as were accepted. */
  complete(): boolean {
    return this.groups.every((group) => this.receivedBy(group) >= this.acceptedCount)
  }

  check(): LedgerCheck {
    let lost = 0
    let unexpected = this.unexpectedCount
    let storedAfterRefusal = 0
    const lostSample: string[] = []
    for (const group of this.groups) {
      const tracks = this.received.get(group) ?? []
      const producers = Math.max(this.sent.length, tracks.length)
      for (let producer = 0; producer < producers; producer++) {
        const sent = this.sent[producer]
        const got = tracks[producer]
        const length = Math.max(sent?.bytes.length ?? 0, got?.bytes.length ?? 0)
        for (let seq = 0; seq < length; seq++) {
          const status = sent?.get(seq) ?? NOT_SENT
          const count = got?.get(seq) ?? 0
          if (status === ACCEPTED && count === 0) {
            lost++
            if (lostSample.length < 5) lostSample.push(`${group}:${producer}.${seq}`)
          } else if (status === REFUSED && count > 0) {
            storedAfterRefusal++
          } else if (status === NOT_SENT && count > 0) {
            unexpected++
          }
        }
      }
    }
    return {
      accepted: this.acceptedCount,
      refused: this.refusedCount,
      delivered: this.deliveredCount,
      lost,
      duplicates: this.duplicateCount,
      unexpected,
      storedAfterRefusal,
      lostSample,
    }
  }
}
