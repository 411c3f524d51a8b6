/**
 * The ack path (docs/semantics.md, "Ack"): validated acks -> group commit -> per batch, queen.ack_leases_drained()
 * for whole leases acked as completed and one queen.ack_messages() call for everything else -> one result
 * per item -> wake-ups for released leases. Same isolation rules as pushes:
 * deadlocks retried in place, an outage reported to every request, any other batch failure retried
 * request by request.
 */
import type pg from 'pg'
import { textArray, uuidArray } from '../db/array-literals.js'
import { runQuery } from '../db/run-query.js'
import { retryOnConflict } from '../../platform/postgres/retry.js'
import { classifyPgError, DatabaseUnavailableError } from '../../platform/postgres/pg-errors.js'
import { MicroBatcher } from './micro-batcher.js'
import type { WakeMarks } from './pop-waiters.js'
import type { BrokerEvents } from '../observe/broker-events.js'
import type { AckResultItem } from '../../wire/index.js'

/** Normalised ack status. */
export type AckStatus = 'completed' | 'failed' | 'dlq' | 'retry'

/** One validated acknowledgement. */
export interface AckItem {
  transactionId: string
  partitionId: string
  group: string
  leaseId: string | null
  status: AckStatus
  error: string | null
}

/** An acknowledgement with the tenant it acts for: a partition of another tenant answers "not found". */
type TenantAckItem = AckItem & { tenant: string }

/** The result of one acknowledgement: the ack result of src/wire/ack.ts before it is numbered, and `drained`. */
export type AckOutcome = Omit<AckResultItem, 'index'> & {
  /** The released lease left nothing behind it in the partition (whole-lease acks only). */
  drained: boolean
}

interface AckRow {
  idx: number
  success: boolean
  error: string | null
  lease_released: boolean | null
  dlq: boolean
  already_acked: boolean
  queue_name: string | null
  partition_name: string | null
}

interface WholeLeaseRow {
  ord: number
  applied: boolean
  queue_name: string | null
  partition_name: string | null
  drained: boolean | null
}

/** Hears about released leases (parked pops may now get that partition). */
export interface AckListener {
  /**
   * A lease was released. `recheckHere` false: nothing was left behind it and no wake reached this broker's
   * parked pops of the queue during the ack, so only other replicas need to hear of it.
   */
  leaseReleased(tenant: string, queue: string, partition: string, recheckHere?: boolean): void
}

/** Applies acknowledgements with group commit. */
export class AckEngine {
  private readonly batcher: MicroBatcher<TenantAckItem[], AckOutcome[]>

  private readonly pool: pg.Pool
  private readonly listener: AckListener
  private readonly wakeMarks: WakeMarks
  private readonly events: BrokerEvents

  /** `wakeMarks`: the parked pops' wake history, so a release with nothing behind it can skip its re-check. */
  constructor(
    pool: pg.Pool,
    listener: AckListener,
    wakeMarks: WakeMarks,
    options: { maxInFlight: number; maxBatchItems: number },
    events: BrokerEvents,
  ) {
    this.pool = pool
    this.listener = listener
    this.wakeMarks = wakeMarks
    this.events = events
    this.batcher = new MicroBatcher((requests) => this.runBatch(requests), {
      maxInFlight: options.maxInFlight,
      maxWeight: options.maxBatchItems,
      weight: (items) => items.length,
    })
  }

  /** Batching counters: requests handled and batches (round trips) they took. */
  get batching(): { requests: number; batches: number } {
    return { requests: this.batcher.submissionsRun, batches: this.batcher.batchesRun }
  }

  /** Applies the acks of one request; one outcome per item, in order. */
  async ack(tenant: string, items: AckItem[]): Promise<AckOutcome[]> {
    if (items.length === 0) return []
    const mark = this.wakeMarks.wakeMark
    // Items of several requests (and tenants) fuse into one batch: each carries its tenant to the statement.
    const outcomes = await this.batcher.submit(items.map((item) => ({ ...item, tenant })))
    for (const outcome of outcomes) {
      if (!outcome.leaseReleased || !outcome.queueName || !outcome.partitionName) continue
      // Nothing behind the lease: a re-check of the parked pops here would be an empty pop (at low rates, one
      // per message), unless a push came in while the lease still hid the partition from its wake's re-check.
      // Other replicas are told either way: a push of theirs may have met the lease, and its wake reaches this
      // broker only after the hint channel's delay.
      const recheckHere = !outcome.drained || this.wakeMarks.wokenSince(tenant, outcome.queueName, mark)
      this.listener.leaseReleased(tenant, outcome.queueName, outcome.partitionName, recheckHere)
    }
    this.reportOutcomes(tenant, items, outcomes)
    return outcomes
  }

  /** Reports applied acks, failures and dead-letters to observers. */
  reportOutcomes(tenant: string, items: AckItem[], outcomes: AckOutcome[]): void {
    // Counted per (queue, status) first: a batch of 100 acks is then one observer call, not 100.
    const acked = new Map<string, { queue: string; status: AckItem['status']; count: number }>()
    const deadLettered = new Map<string, number>()
    outcomes.forEach((outcome, index) => {
      const item = items[index]
      if (!item || !outcome.success || outcome.alreadyAcked || !outcome.queueName) return
      const key = `${outcome.queueName}\u0000${item.status}`
      const entry = acked.get(key)
      if (entry) entry.count += 1
      else acked.set(key, { queue: outcome.queueName, status: item.status, count: 1 })
      if (outcome.dlq) deadLettered.set(outcome.queueName, (deadLettered.get(outcome.queueName) ?? 0) + 1)
    })
    for (const { queue, status, count } of acked.values()) {
      this.events.emit('acked', tenant, queue, status, count)
      if (status === 'failed') this.events.emit('failed', tenant, queue, 'nack', count)
    }
    for (const [queue, count] of deadLettered) this.events.emit('deadLettered', tenant, queue, count)
  }

  /** Runs acks inside a caller's transaction (POST /api/v1/transaction), without batching. */
  async ackInTransaction(client: pg.ClientBase, tenant: string, acks: AckItem[]): Promise<AckOutcome[]> {
    const items = acks.map((item) => ({ ...item, tenant }))
    const outcomes = await this.applyWholeLeases(client, items)
    await this.applyEach(client, items, outcomes, openIndexes(outcomes, 0, items.length))
    return outcomes as AckOutcome[]
  }

  // Whole leases first, then everything else. Each statement is retried on its own: a retry must never run
  // again a statement that committed (its leases would then answer "already acked").
  private async runBatch(requests: TenantAckItem[][]): Promise<AckOutcome[][]> {
    const items = requests.flat()
    let outcomes: (AckOutcome | undefined)[]
    try {
      outcomes = await retryOnConflict(() => this.applyWholeLeases(this.pool, items))
    } catch (error) {
      if (classifyPgError(error) === 'unavailable') throw new DatabaseUnavailableError(error)
      // Nothing of it applied (one statement): every item takes the general path, which answers each.
      outcomes = new Array<AckOutcome | undefined>(items.length)
    }
    const groups: number[][] = []
    let offset = 0
    for (const request of requests) {
      const open = openIndexes(outcomes, offset, offset + request.length)
      if (open.length > 0) groups.push(open)
      offset += request.length
    }
    if (groups.length > 0) await this.applyRest(items, outcomes, groups)
    offset = 0
    return requests.map((request) => request.map(() => outcomes[offset++]!))
  }

  /** The general path for the open items of each request; a failing batch is retried request by request. */
  private async applyRest(
    items: TenantAckItem[],
    outcomes: (AckOutcome | undefined)[],
    groups: number[][],
  ): Promise<void> {
    try {
      await retryOnConflict(() => this.applyEach(this.pool, items, outcomes, groups.flat()))
    } catch (error) {
      if (classifyPgError(error) === 'unavailable') throw new DatabaseUnavailableError(error)
      if (groups.length === 1) throw error
      await Promise.all(groups.map((group) => this.applyRest(items, outcomes, [group])))
    }
  }

  /** queen.ack_messages() for the items at `indexes`; fills their outcomes. */
  private async applyEach(
    db: pg.Pool | pg.ClientBase,
    items: TenantAckItem[],
    outcomes: (AckOutcome | undefined)[],
    indexes: number[],
  ): Promise<void> {
    if (indexes.length === 0) return
    const wire = indexes.map((index) => {
      const item = items[index]!
      return {
        i: index,
        t: item.tenant,
        pid: item.partitionId,
        tx: item.transactionId,
        g: item.group,
        l: item.leaseId,
        st: item.status,
        err: item.error,
      }
    })
    const rows = await runQuery<AckRow>(db, 'messageAck', [JSON.stringify(wire)])
    const byIndex = new Map(rows.map((row) => [row.idx, row]))
    for (const index of indexes) {
      const row = byIndex.get(index)
      outcomes[index] = {
        transactionId: items[index]!.transactionId,
        success: row?.success ?? false,
        error: row ? row.error : 'ack was not applied',
        queueName: row?.queue_name ?? null,
        partitionName: row?.partition_name ?? null,
        leaseReleased: row?.lease_released ?? null,
        drained: false,
        dlq: row?.dlq ?? false,
        alreadyAcked: row?.already_acked ?? false,
      }
    }
  }

  /**
   * The common case in one cheap statement: a consumer acking every message of its lease as completed.
   * Items grouped by (partition, group, lease) that are all `completed` with distinct transaction ids go to
   * queen.ack_leases_drained(); the outcomes of the leases it applied are filled in (the lease is released by the
   * group's last item), the rest stay undefined for queen.ack_messages().
   */
  private async applyWholeLeases(
    db: pg.Pool | pg.ClientBase,
    items: TenantAckItem[],
  ): Promise<(AckOutcome | undefined)[]> {
    const outcomes = new Array<AckOutcome | undefined>(items.length)
    const groups = new Map<string, number[]>()
    items.forEach((item, index) => {
      if (item.leaseId === null) return
      const key = `${item.tenant}\u0000${item.partitionId}\u0000${item.group}\u0000${item.leaseId}`
      const members = groups.get(key)
      if (members) members.push(index)
      else groups.set(key, [index])
    })
    const leases = [...groups.values()].filter((members) => {
      const transactionIds = new Set<string>()
      for (const index of members) {
        const item = items[index]!
        if (item.status !== 'completed') return false
        transactionIds.add(item.transactionId)
      }
      return transactionIds.size === members.length
    })
    if (leases.length === 0) return outcomes
    const first = (members: number[]) => items[members[0]!]!
    const rows = await runQuery<WholeLeaseRow>(db, 'messageAckLeases', [
      uuidArray(leases.map((members) => first(members).partitionId)),
      textArray(leases.map((members) => first(members).group)),
      uuidArray(leases.map((members) => first(members).leaseId!)),
      leases.map((members) => members.length),
      textArray(leases.flatMap((members) => members.map((index) => items[index]!.transactionId))),
      textArray(leases.map((members) => first(members).tenant)),
    ])
    for (const row of rows) {
      const members = leases[row.ord - 1]
      if (!row.applied || !members) continue
      const last = members[members.length - 1]
      for (const index of members) {
        outcomes[index] = {
          transactionId: items[index]!.transactionId,
          success: true,
          error: null,
          queueName: row.queue_name,
          partitionName: row.partition_name,
          leaseReleased: index === last,
          drained: row.drained === true,
          dlq: false,
          alreadyAcked: false,
        }
      }
    }
    return outcomes
  }
}

/** Indexes in [from, to) that have no outcome yet. */
function openIndexes(outcomes: (AckOutcome | undefined)[], from: number, to: number): number[] {
  const open: number[] = []
  for (let index = from; index < to; index++) if (!outcomes[index]) open.push(index)
  return open
}
