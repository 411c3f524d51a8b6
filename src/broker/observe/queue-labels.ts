/**
 * The `queue` label of per-queue Prometheus series, capped by QUEEN_METRICS_MAX_QUEUES (docs/configuration.md, "Logs
 * and metrics"): the first queues seen keep their own series, every later one is folded into `queue="_other"`, so a
 * broker with a million queues cannot make a scrape unbounded.
 */

/** The label value later queues are folded into. */
export const OTHER_QUEUE_LABEL = '_other'

/** Assigns label values; a queue keeps the value it got first for the life of the process. */
export class QueueLabels {
  private readonly known = new Set<string>()
  private readonly maxQueues: number

  /** @param maxQueues queues with a series of their own (QUEEN_METRICS_MAX_QUEUES; 0 folds every queue). */
  constructor(maxQueues: number) {
    if (!Number.isInteger(maxQueues) || maxQueues < 0) throw new Error('maxQueues must be an integer >= 0')
    this.maxQueues = maxQueues
  }

  /** The label value of `queue` of `tenant`. */
  label(tenant: string, queue: string): string {
    const key = `${tenant}\u0000${queue}`
    if (this.known.has(key)) return queue
    if (this.known.size >= this.maxQueues) return OTHER_QUEUE_LABEL
    this.known.add(key)
    return queue
  }
}
