/**
 * Where each pushed item goes (docs/operations.md, "When a push is spooled"): to PostgreSQL, or to the disk spool when
 * push-maintenance is on, when PostgreSQL is unreachable (an outage-class failure, not a data error), or when the
 * item's partition still has spooled records awaiting replay (so partition order holds across the outage). An item that
 * reaches neither is answered `failed` with `unavailable`, and the route turns that into 503.
 */
import { DatabaseUnavailableError } from '../../platform/postgres/pg-errors.js'
import type { BrokerEvents } from '../observe/broker-events.js'
import type { SpoolRecord } from '../spool/record-format.js'
import { SpoolUnavailableError, type Spool } from '../spool/spool.js'
import type { PushEncryption } from './push-encryption.js'
import type { DbHealth } from './db-health.js'
import type { MaintenanceFlags } from './maintenance.js'
import type { PushEngine, PushOutcome } from './push-engine.js'
import type { PushItem } from './push-item.js'
import type { QueueRegistry } from './queue-registry.js'

/** Facts about the request that the spool records keep. */
export interface PushContext {
  requestId: string
}

/** The parts the router consults; the spool is absent in brokers (and tests) without one. */
export interface PushRouterParts {
  engine: PushEngine
  registry: QueueRegistry
  events: BrokerEvents
  spool?: Spool
  dbHealth?: DbHealth
  maintenance?: MaintenanceFlags
  /** What a spooled item holds: ciphertext for encrypted queues, encrypted before it touches the disk. */
  encryption: PushEncryption
}

/** Routes pushes between PostgreSQL and the spool. */
export class PushRouter {
  private readonly parts: PushRouterParts

  constructor(parts: PushRouterParts) {
    this.parts = parts
  }

  /** True when a transaction pushing to this partition must wait for the spool (docs/semantics.md, "Transactions"). */
  partitionHasSpooled(tenant: string, queue: string, partition: string): boolean {
    return this.parts.spool?.hasPending(tenant, queue, partition) ?? false
  }

  /** Stores or spools every item; one outcome per item, in order. */
  async push(tenant: string, items: PushItem[], context: PushContext): Promise<PushOutcome[]> {
    if (items.length === 0) return []
    const { spool, dbHealth, maintenance } = this.parts
    const everythingToSpool = maintenance?.push === true || (dbHealth !== undefined && !dbHealth.healthy)
    const toSpool: number[] = []
    const toDatabase: number[] = []
    items.forEach((item, index) => {
      const spoolIt = everythingToSpool || (spool?.hasPending(tenant, item.queue, item.partition) ?? false)
      ;(spoolIt ? toSpool : toDatabase).push(index)
    })
    const outcomes: PushOutcome[] = new Array<PushOutcome>(items.length)

    // Appending first marks those partitions pending at once, so later pushes to them follow.
    const spooled = this.spoolItems(tenant, items, toSpool, context, outcomes)
    const stored = this.storeItems(tenant, items, toDatabase, context, outcomes)
    await Promise.all([spooled, stored])
    return outcomes
  }

  private async storeItems(
    tenant: string,
    items: PushItem[],
    indexes: number[],
    context: PushContext,
    outcomes: PushOutcome[],
  ): Promise<void> {
    if (indexes.length === 0) return
    const subset = indexes.map((index) => items[index]!)
    try {
      const results = await this.parts.engine.push(tenant, subset)
      indexes.forEach((index, position) => {
        outcomes[index] = results[position]!
      })
    } catch (error) {
      if (!(error instanceof DatabaseUnavailableError)) throw error
      this.parts.dbHealth?.markDown(error)
      if (this.parts.spool) {
        await this.spoolItems(tenant, items, indexes, context, outcomes)
      } else {
        for (const index of indexes) outcomes[index] = unavailable(items[index]!, error.message)
        this.parts.engine.reportOutcomes(
          tenant,
          indexes.map((index) => outcomes[index]!),
        )
      }
    }
  }

  private async spoolItems(
    tenant: string,
    items: PushItem[],
    indexes: number[],
    context: PushContext,
    outcomes: PushOutcome[],
  ): Promise<void> {
    if (indexes.length === 0) return
    const { spool, encryption } = this.parts
    const accepted: number[] = []
    const stored = new Map<number, { encrypted: boolean; payload: unknown }>()
    for (const index of indexes) {
      const item = items[index]!
      // Plaintext never reaches the disk for an encrypted queue (docs/semantics.md, "Refusals",
      // PushEncryption.forSpool).
      const decided = encryption.forSpool(tenant, item)
      if ('error' in decided) {
        outcomes[index] = { ...base(item), status: 'failed', error: decided.error }
      } else {
        stored.set(index, decided)
        accepted.push(index)
      }
    }
    if (!spool) {
      for (const index of accepted)
        outcomes[index] = unavailable(items[index]!, 'spool unavailable: no spool configured')
    } else if (accepted.length > 0) {
      const acceptedAt = Date.now()
      const records: SpoolRecord[] = accepted.map((index) => {
        const item = items[index]!
        const { encrypted, payload } = stored.get(index)!
        return {
          v: 1,
          tenant,
          queue: item.queue,
          partition: item.partition,
          transactionId: item.transactionId,
          traceId: item.traceId,
          producerSub: item.producerSub,
          acceptedAt,
          requestId: context.requestId,
          encrypted,
          payload,
        }
      })
      try {
        await spool.append(records)
        for (const index of accepted) outcomes[index] = { ...base(items[index]!), status: 'buffered' }
      } catch (error) {
        if (!(error instanceof SpoolUnavailableError)) throw error
        for (const index of accepted) outcomes[index] = unavailable(items[index]!, error.message)
      }
    }
    this.parts.engine.reportOutcomes(
      tenant,
      indexes.map((index) => outcomes[index]!),
    )
  }
}

function base(item: PushItem) {
  return { queue: item.queue, partition: item.partition, transactionId: item.transactionId, traceId: item.traceId }
}

function unavailable(item: PushItem, error: string): PushOutcome {
  return { ...base(item), status: 'failed', error, unavailable: true }
}
