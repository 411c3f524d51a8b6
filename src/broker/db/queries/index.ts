/**
 * The registry of runtime statements (style.md 3.7): one `.sql` file per statement in this folder, each
 * mapped here to a typed name. All files are read when this module loads, so a missing file fails the
 * boot rather than the first request that needs it.
 */
import { readFileSync } from 'node:fs'

const FILES = {
  consumerGroupDelete: 'consumer-group-delete.sql',
  consumerGroupSubscription: 'consumer-group-subscription.sql',
  dlqList: 'dlq-list.sql',
  healthPing: 'health-ping.sql',
  leaseExtend: 'lease-extend.sql',
  leaseLockRequired: 'lease-lock-required.sql',
  leaseReclaimExpired: 'lease-reclaim-expired.sql',
  leaseRelease: 'lease-release.sql',
  messageAck: 'message-ack.sql',
  messagePop: 'message-pop.sql',
  messagePush: 'message-push.sql',
  partitionGet: 'partition-get.sql',
  queueConfigure: 'queue-configure.sql',
  queueDelete: 'queue-delete.sql',
  queueGet: 'queue-get.sql',
  queueList: 'queue-list.sql',
  queuePartitions: 'queue-partitions.sql',
  traceRecord: 'trace-record.sql',
} as const

/** Name of a registered statement. */
export type QueryName = keyof typeof FILES

function load(): Record<QueryName, string> {
  const entries = Object.entries(FILES).map(([name, file]) => [
    name,
    readFileSync(new URL(`./${file}`, import.meta.url), 'utf8'),
  ])
  return Object.fromEntries(entries) as Record<QueryName, string>
}

/** Every runtime statement's SQL text, by name. */
export const SQL: Readonly<Record<QueryName, string>> = Object.freeze(load())

/** The file each statement was read from (for the statement check test). */
export const QUERY_FILES: Readonly<Record<QueryName, string>> = FILES
