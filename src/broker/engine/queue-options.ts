/** Queue options (docs/semantics.md, "Options"): wire names, defaults and ranges, in one table. */
import type { QueueRecord } from './queue-registry.js'

/** An integer option's rule. */
interface IntegerRule {
  kind: 'integer'
  default: number
  min: number
  max: number
}
/** A boolean option's rule. */
interface BooleanRule {
  kind: 'boolean'
  default: boolean
}

/** Every option POST /api/v1/configure accepts, by wire name. */
export const QUEUE_OPTIONS = {
  leaseTime: { kind: 'integer', default: 300, min: 1, max: 604_800 },
  retryLimit: { kind: 'integer', default: 3, min: 0, max: 1000 },
  retryDelay: { kind: 'integer', default: 1000, min: 0, max: 86_400_000 },
  priority: { kind: 'integer', default: 0, min: -1000, max: 1000 },
  delayedProcessing: { kind: 'integer', default: 0, min: 0, max: 31_536_000 },
  windowBuffer: { kind: 'integer', default: 0, min: 0, max: 86_400 },
  maxSize: { kind: 'integer', default: 0, min: 0, max: 2_147_483_647 },
  maxPartitions: { kind: 'integer', default: 0, min: 0, max: 1_000_000 },
  dedupWindowSeconds: { kind: 'integer', default: 3600, min: 0, max: 2_592_000 },
  deadLetterQueue: { kind: 'boolean', default: false },
  retentionEnabled: { kind: 'boolean', default: false },
  retentionSeconds: { kind: 'integer', default: 0, min: 0, max: 2_147_483_647 },
  completedRetentionSeconds: { kind: 'integer', default: 0, min: 0, max: 2_147_483_647 },
  maxWaitTimeSeconds: { kind: 'integer', default: 0, min: 0, max: 2_147_483_647 },
  encryptionEnabled: { kind: 'boolean', default: false },
} as const satisfies Record<string, IntegerRule | BooleanRule>

/** Wire name of an option. */
export type QueueOptionName = keyof typeof QUEUE_OPTIONS

/** A complete option set, wire names. */
export type QueueOptions = {
  -readonly [K in QueueOptionName]: (typeof QUEUE_OPTIONS)[K]['default'] extends boolean ? boolean : number
}

/** Keys older clients send that are reported as ignored, never stored (docs/semantics.md, "Legacy keys"). */
export const LEGACY_OPTION_KEYS = ['ttl', 'dlqAfterMaxRetries'] as const

/** Every option at its default. */
export function defaultQueueOptions(): QueueOptions {
  return Object.fromEntries(Object.entries(QUEUE_OPTIONS).map(([name, rule]) => [name, rule.default])) as QueueOptions
}

/** The stored options of a queue, wire names. */
export function queueOptionsOf(queue: QueueRecord): QueueOptions {
  return {
    leaseTime: queue.leaseTimeSeconds,
    retryLimit: queue.retryLimit,
    retryDelay: queue.retryDelayMs,
    priority: queue.priority,
    delayedProcessing: queue.delayedProcessingSeconds,
    windowBuffer: queue.windowBufferSeconds,
    maxSize: queue.maxSize,
    maxPartitions: queue.maxPartitions,
    dedupWindowSeconds: queue.dedupWindowSeconds,
    deadLetterQueue: queue.deadLetterQueue,
    retentionEnabled: queue.retentionEnabled,
    retentionSeconds: queue.retentionSeconds,
    completedRetentionSeconds: queue.completedRetentionSeconds,
    maxWaitTimeSeconds: queue.maxWaitTimeSeconds,
    encryptionEnabled: queue.encryptionEnabled,
  }
}

/** The namespace and task an auto-created queue derives from its name (docs/semantics.md, "Auto-creation"). */
export function derivedTags(queue: string): { namespace: string; task: string } {
  const parts = queue.split('.')
  return { namespace: parts[0] ?? queue, task: parts[1] ?? '' }
}
