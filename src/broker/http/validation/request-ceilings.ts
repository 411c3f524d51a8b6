/**
 * What one request may create (issue 40, docs/security.md): a push, a transaction or a stream cycle creates
 * every queue and partition it names that does not exist yet, so before anything is stored the names are
 * counted against `QUEEN_MAX_QUEUES_PER_REQUEST` and `QUEEN_MAX_PARTITIONS_PER_REQUEST`. Names are counted
 * whether or not they exist already: the check needs no database, and holds while pushes are spooled.
 * Per-tenant quotas over time are the gateway's (issue 36), not the broker's.
 */
import type { BrokerConfig } from '../../config/broker-config.js'
import { validationError } from '../../errors.js'

/** The ceilings, from the configuration. */
export type RequestCeilings = Pick<BrokerConfig, 'maxQueuesPerRequest' | 'maxPartitionsPerRequest'>

/** Refuses (400) items naming more distinct queues or partitions than the ceilings allow; `field` names the array. */
export function checkNamesPerRequest(
  items: readonly { queue: string; partition: string }[],
  ceilings: RequestCeilings,
  field: string,
): void {
  const queues = new Set<string>()
  const partitions = new Set<string>()
  for (const item of items) {
    queues.add(item.queue)
    partitions.add(`${item.queue}\u0000${item.partition}`)
  }
  if (queues.size > ceilings.maxQueuesPerRequest) {
    throw validationError(
      `${field}: names ${queues.size} queues; at most ${ceilings.maxQueuesPerRequest} per request (QUEEN_MAX_QUEUES_PER_REQUEST)`,
    )
  }
  if (partitions.size > ceilings.maxPartitionsPerRequest) {
    throw validationError(
      `${field}: names ${partitions.size} partitions; at most ${ceilings.maxPartitionsPerRequest} per request (QUEEN_MAX_PARTITIONS_PER_REQUEST)`,
    )
  }
}
