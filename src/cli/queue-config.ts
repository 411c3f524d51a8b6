/**
 * The read-merge-write of `queue configure` and `apply` (docs/cli.md, "queenctl queue configure"): POST
 * /api/v1/configure replaces every option, so the CLI reads the stored set, overlays what was asked and posts the whole
 * set.
 */
import { Flags, type Interfaces } from '@oclif/core'
import {
  defaultQueueOptions,
  QUEUE_OPTIONS,
  type QueueOptionName,
  type QueueOptions,
} from '../broker/engine/queue-options.js'
import { UserError } from './errors.js'
import { parseDurationMs } from './flags.js'
import type { HttpClient } from './http-client.js'
import type { ConfigureAnswer, QueueDetailAnswer } from '../wire/index.js'

/** How a flag's text becomes the option's number: seconds, milliseconds, or a plain integer. */
type Unit = 'seconds' | 'ms' | 'integer' | 'boolean'

/** The option flags of docs/cli.md, "queenctl queue configure", flag name → wire name and unit. */
export const OPTION_FLAGS: Record<
  string,
  { option: QueueOptionName; unit: Unit; description: string; aliases?: string[] }
> = {
  'lease-time': {
    option: 'leaseTime',
    unit: 'seconds',
    description: 'lease of a popped message (seconds; also 90s, 5m)',
  },
  'retry-limit': { option: 'retryLimit', unit: 'integer', description: 'retries before a message is failed' },
  'retry-delay': { option: 'retryDelay', unit: 'ms', description: 'wait before a retry (ms; also 500ms, 2s)' },
  priority: { option: 'priority', unit: 'integer', description: 'queue priority for queueless pops' },
  'delayed-processing': {
    option: 'delayedProcessing',
    unit: 'seconds',
    description: 'delay before a message is poppable (seconds)',
  },
  'window-buffer': {
    option: 'windowBuffer',
    unit: 'seconds',
    description: 'partition quiet time before a pop (seconds)',
  },
  'max-size': { option: 'maxSize', unit: 'integer', description: 'maximum unsettled messages (0 = unlimited)' },
  'max-partitions': { option: 'maxPartitions', unit: 'integer', description: 'maximum partitions (0 = unlimited)' },
  'dedup-window': {
    option: 'dedupWindowSeconds',
    unit: 'seconds',
    description: 'transaction-id dedup window (seconds)',
  },
  retention: { option: 'retentionSeconds', unit: 'seconds', description: 'retention of pending messages (seconds)' },
  'completed-retention': {
    option: 'completedRetentionSeconds',
    unit: 'seconds',
    description: 'retention of completed messages (seconds)',
  },
  'retention-enabled': { option: 'retentionEnabled', unit: 'boolean', description: 'run retention on this queue' },
  'max-wait-time': {
    option: 'maxWaitTimeSeconds',
    unit: 'seconds',
    description: 'age after which pending messages are evicted (seconds)',
  },
  encrypt: {
    option: 'encryptionEnabled',
    unit: 'boolean',
    description: 'encrypt payloads (needs QUEEN_ENCRYPTION_KEY)',
  },
  // --dlq and --dlq=false are the Go queenctl's names (its queue configure --help).
  'dead-letter-queue': {
    option: 'deadLetterQueue',
    unit: 'boolean',
    description: 'move failed messages to the DLQ (alias --dlq)',
    aliases: ['dlq'],
  },
}

/** Parses a number flag of `unit`; durations accept the units of parseDurationMs, bare numbers are the unit itself. */
export function parseOptionValue(flag: string, unit: Unit, text: string): number {
  const trimmed = text.trim()
  if (/^-?\d+$/.test(trimmed)) return Number(trimmed)
  if (unit === 'integer') throw new UserError(`--${flag}: ${JSON.stringify(text)} is not an integer`)
  let ms: number
  try {
    ms = parseDurationMs(trimmed)
  } catch {
    throw new UserError(`--${flag}: ${JSON.stringify(text)} is not a duration`, { hint: 'use e.g. 30, 90s, 5m' })
  }
  if (unit === 'ms') return ms
  if (ms % 1000 !== 0) throw new UserError(`--${flag}: ${JSON.stringify(text)} is not a whole number of seconds`)
  return ms / 1000
}

type OptionFlagSet = Record<
  string,
  Interfaces.OptionFlag<string | undefined> | Interfaces.BooleanFlag<boolean | string | undefined>
>

/** The oclif flags of the option set (numbers as text so durations parse with the flag's own unit). */
export function optionFlags(): OptionFlagSet {
  const flags: OptionFlagSet = {}
  for (const [name, spec] of Object.entries(OPTION_FLAGS)) {
    flags[name] =
      spec.unit === 'boolean'
        ? Flags.boolean({ description: `${spec.description} (${spec.option})`, allowNo: true, aliases: spec.aliases })
        : Flags.string({ description: `${spec.description} (${spec.option})` })
  }
  return flags
}

/** The options the parsed flags ask for, wire names; flags not given are absent. */
export function optionsFromFlags(flags: Record<string, unknown>): Partial<QueueOptions> {
  const options: Record<string, number | boolean> = {}
  for (const [name, spec] of Object.entries(OPTION_FLAGS)) {
    const value = flags[name]
    if (value === undefined) continue
    options[spec.option] =
      spec.unit === 'boolean'
        ? Boolean(value)
        : parseOptionValue(name, spec.unit, typeof value === 'string' ? value : JSON.stringify(value))
  }
  return options
}

/**
 * Checks an options object from a file or an apply document (`where` names it in errors): known wire
 * names only, integers and booleans of the right kind. Legacy keys pass through for the broker to report.
 */
export function checkOptionsObject(value: unknown, where: string): Partial<QueueOptions> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new UserError(`${where}: must be an object of queue options`)
  }
  const options: Record<string, unknown> = {}
  for (const [key, raw] of Object.entries(value as Record<string, unknown>)) {
    const rule = (QUEUE_OPTIONS as Record<string, { kind: string }>)[key]
    if (key === 'ttl' || key === 'dlqAfterMaxRetries') {
      options[key] = raw
      continue
    }
    if (!rule) {
      throw new UserError(`${where}.${key}: unknown queue option`, {
        hint: `options are ${Object.keys(QUEUE_OPTIONS).join(', ')}`,
      })
    }
    if (rule.kind === 'boolean' && typeof raw !== 'boolean')
      throw new UserError(`${where}.${key}: must be true or false`)
    if (rule.kind === 'integer' && !Number.isInteger(raw)) throw new UserError(`${where}.${key}: must be an integer`)
    options[key] = raw
  }
  return options
}

/** What the broker stores for a queue, or undefined when it does not exist. */
export interface StoredQueue {
  namespace: string
  task: string
  options: QueueOptions
}

/** GET /api/v1/resources/queues/:queue; an unknown queue (404) is undefined. */
export async function readStoredQueue(client: HttpClient, queue: string): Promise<StoredQueue | undefined> {
  try {
    const answer = await client.get<QueueDetailAnswer>(`/api/v1/resources/queues/${encodeURIComponent(queue)}`)
    // The broker answers every stored option (queueOptionsOf); the wire types them loosely.
    return { namespace: answer.namespace, task: answer.task, options: answer.options as QueueOptions }
  } catch (error) {
    if ((error as { status?: number }).status === 404) return undefined
    throw error
  }
}

/** One changed field of a configure. */
export interface OptionChange {
  option: string
  old: unknown
  new: unknown
}

/** The body of POST /api/v1/configure and what changed against the stored queue. */
export interface ConfigurePlan {
  body: { queue: string; namespace?: string; task?: string; options: Record<string, unknown> }
  changes: OptionChange[]
  exists: boolean
  /** Notes to print (retention turned on by the retention rule). */
  notes: string[]
}

/**
 * Overlays `asked` on the stored options (or the defaults with `replace` or for a new queue). Retention
 * periods above 0 on a queue whose merged retentionEnabled is false turn it on, unless it was asked off.
 */
export function planConfigure(
  queue: string,
  stored: StoredQueue | undefined,
  asked: { namespace?: string; task?: string; options: Partial<QueueOptions> & Record<string, unknown> },
  replace: boolean,
): ConfigurePlan {
  const base: Record<string, unknown> = replace || !stored ? defaultQueueOptions() : { ...stored.options }
  const merged: Record<string, unknown> = { ...base, ...asked.options }
  const notes: string[] = []
  const retentionAsked =
    (typeof asked.options.retentionSeconds === 'number' && asked.options.retentionSeconds > 0) ||
    (typeof asked.options.completedRetentionSeconds === 'number' && asked.options.completedRetentionSeconds > 0)
  if (retentionAsked && merged.retentionEnabled === false && asked.options.retentionEnabled === undefined) {
    merged.retentionEnabled = true
    notes.push(
      'retentionEnabled turned on: a retention period does nothing while retention is off (--no-retention-enabled keeps it off)',
    )
  }
  const body: ConfigurePlan['body'] = { queue, options: merged }
  const namespace = asked.namespace ?? (replace ? undefined : stored?.namespace)
  const task = asked.task ?? (replace ? undefined : stored?.task)
  if (namespace !== undefined) body.namespace = namespace
  if (task !== undefined) body.task = task
  const changes: OptionChange[] = []
  const before: Record<string, unknown> = stored
    ? { namespace: stored.namespace, task: stored.task, ...stored.options }
    : {}
  const after: Record<string, unknown> = { ...merged }
  if (asked.namespace !== undefined || stored) after.namespace = body.namespace ?? ''
  if (asked.task !== undefined || stored) after.task = body.task ?? ''
  // A new queue lists what differs from the defaults; an existing one what differs from the stored set.
  const reference = stored ? before : (defaultQueueOptions() as Record<string, unknown>)
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (reference[key] !== after[key])
      changes.push({ option: key, old: stored ? before[key] : undefined, new: after[key] })
  }
  return { body, changes, exists: stored !== undefined, notes }
}

/** The diff lines of a plan (stderr): `option: old -> new`, or a note that nothing changes. */
export function renderChanges(queue: string, plan: ConfigurePlan): string {
  if (!plan.exists && plan.changes.length === 0)
    return `queue ${JSON.stringify(queue)} is new: every option at its default\n`
  if (plan.changes.length === 0) return `no change to queue ${JSON.stringify(queue)}\n`
  const head = plan.exists ? `changes to queue ${JSON.stringify(queue)}:` : `new queue ${JSON.stringify(queue)}:`
  const show = (value: unknown) => (value === undefined ? '(default)' : JSON.stringify(value))
  return `${head}\n${plan.changes.map((change) => `  ${change.option}: ${show(change.old)} -> ${show(change.new)}`).join('\n')}\n`
}

/** POST /api/v1/configure (src/wire/queue-config.ts). */
export type { ConfigureAnswer }

export function postConfigure(client: HttpClient, plan: ConfigurePlan): Promise<ConfigureAnswer> {
  return client.post<ConfigureAnswer>('/api/v1/configure', plan.body)
}
