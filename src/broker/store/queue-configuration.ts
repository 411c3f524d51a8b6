/**
 * Configure and delete of a queue, with the steps that follow the statement: the replica's registry entry
 * dropped, CONFIG_INVALIDATE published to the other replicas and, on delete, the parked pops answered.
 */
import type pg from 'pg'
import { runQuery } from '../db/run-query.js'
import type { HintChannel } from '../db/hint-channel.js'
import type { PopWaiters } from '../engine/pop-waiters.js'
import type { QueueOptions } from '../engine/queue-options.js'
import type { QueueRegistry } from '../engine/queue-registry.js'

/** What a queue change needs besides the database. */
export interface QueueChangeDependencies {
  pool: pg.Pool
  registry: Pick<QueueRegistry, 'invalidate'>
  /** Absent when the broker runs without a hint channel (tests): then only this replica is told. */
  hints?: Pick<HintChannel, 'publish'> | undefined
}

/** A full replace of a queue's tags and options. */
export interface QueueConfiguration {
  tenant: string
  queue: string
  namespace: string
  task: string
  options: QueueOptions
}

/** Ids of the configured queue and of its default partition. */
export interface ConfiguredQueue {
  queueId: string
  partitionId: string
}

/** Drops the queue from this replica's cache and tells the other replicas to do the same. */
function announceQueueChange(deps: QueueChangeDependencies, tenant: string, queue: string): void {
  deps.registry.invalidate(tenant, queue)
  deps.hints?.publish({ type: 'CONFIG_INVALIDATE', tenant, queue })
}

/** Creates the queue or replaces its options, then invalidates every replica's cached copy. */
export async function configureQueue(
  deps: QueueChangeDependencies,
  configuration: QueueConfiguration,
): Promise<ConfiguredQueue> {
  // queue-configure.sql: $1 tenant, $2 queue name, $3 namespace, $4 task, $5 options (jsonb).
  const [row] = await runQuery<{ queue_id: string; partition_id: string }>(deps.pool, 'queueConfigure', [
    configuration.tenant,
    configuration.queue,
    configuration.namespace,
    configuration.task,
    JSON.stringify(configuration.options),
  ])
  announceQueueChange(deps, configuration.tenant, configuration.queue)
  // The statement upserts and always returns its one row.
  return { queueId: row!.queue_id, partitionId: row!.partition_id }
}

/**
 * Removes the queue and everything under it, invalidates every replica's cached copy and answers this
 * replica's parked pops on it; resolves with whether the queue existed.
 */
export async function deleteQueue(
  deps: QueueChangeDependencies & { waiters: Pick<PopWaiters, 'endQueue'> },
  params: { tenant: string; queue: string },
): Promise<boolean> {
  // queue-delete.sql: $1 tenant, $2 queue name.
  const [row] = await runQuery<{ existed: boolean }>(deps.pool, 'queueDelete', [params.tenant, params.queue])
  announceQueueChange(deps, params.tenant, params.queue)
  deps.waiters.endQueue(params.tenant, params.queue)
  return row?.existed ?? false
}
