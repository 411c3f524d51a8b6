/**
 * The queue configuration edit, merge-safe like `queenctl queue configure` (docs/cli.md, "queenctl queue
 * configure"): POST /api/v1/configure replaces every option, so the edit is laid over the options the broker
 * holds at the moment of saving, and the diff against them is what the user confirms. Only the options the
 * user touched change; the broker checks every value and its error is shown as it says it.
 */

/** How an option is labelled and in which unit its number is. */
export const OPTION_LABELS: Record<string, { label: string; unit?: string }> = {
  leaseTime: { label: 'Lease time', unit: 's' },
  retryLimit: { label: 'Retry limit' },
  retryDelay: { label: 'Retry delay', unit: 'ms' },
  priority: { label: 'Priority' },
  delayedProcessing: { label: 'Delayed processing', unit: 's' },
  windowBuffer: { label: 'Window buffer', unit: 's' },
  maxSize: { label: 'Max size (0 = no cap)' },
  maxPartitions: { label: 'Max partitions (0 = no cap)' },
  dedupWindowSeconds: { label: 'Dedup window', unit: 's' },
  deadLetterQueue: { label: 'Dead-letter queue keeps payloads' },
  retentionEnabled: { label: 'Retention enabled' },
  retentionSeconds: { label: 'Retention', unit: 's' },
  completedRetentionSeconds: { label: 'Completed retention', unit: 's' },
  maxWaitTimeSeconds: { label: 'Max wait time', unit: 's' },
  encryptionEnabled: { label: 'Encryption' },
}

/** The tags, edited beside the options (top-level fields of the configure body). */
export const TAGS = ['namespace', 'task'] as const

/** What the broker holds for a queue, as GET /api/v1/resources/queues/:queue answers. */
export interface StoredConfig {
  namespace: string
  task: string
  options: Record<string, unknown>
}

/** The user's edits: the text of a touched number or tag field, the state of a touched checkbox. */
export type Edits = Record<string, string | boolean>

/** One line of the diff. */
export interface Change {
  option: string
  before: unknown
  after: unknown
}

/** The body to post and what it changes. */
export interface ConfigurePlan {
  body: { queue: string; namespace: string; task: string; options: Record<string, unknown> }
  changes: Change[]
  notes: string[]
}

/** The options in the order of {@link OPTION_LABELS}, then any the dashboard does not know, by name. */
export function optionOrder(options: Record<string, unknown>): string[] {
  const known = Object.keys(OPTION_LABELS).filter((key) => key in options)
  const other = Object.keys(options)
    .filter((key) => !(key in OPTION_LABELS))
    .sort()
  return [...known, ...other]
}

/**
 * A number field's text as sent: a number when it reads as one, else the text itself, so the broker names the
 * option and says what is wrong with it (`options.leaseTime: must be an integer`).
 */
function valueOf(text: string): number | string {
  const trimmed = text.trim()
  return trimmed !== '' && Number.isFinite(Number(trimmed)) ? Number(trimmed) : text
}

/**
 * Lays the edits over `stored`. As the CLI does, a retention period above 0 on a queue whose retention is off
 * turns retention on, unless the user touched that switch.
 */
export function planConfigure(queue: string, stored: StoredConfig, edits: Edits): ConfigurePlan {
  const options: Record<string, unknown> = { ...stored.options }
  for (const [key, value] of Object.entries(edits)) {
    if ((TAGS as readonly string[]).includes(key)) continue
    options[key] = typeof value === 'boolean' ? value : valueOf(value)
  }
  const notes: string[] = []
  const periodAsked = ['retentionSeconds', 'completedRetentionSeconds'].some(
    (key) => key in edits && typeof options[key] === 'number' && options[key] > 0,
  )
  if (periodAsked && options.retentionEnabled === false && !('retentionEnabled' in edits)) {
    options.retentionEnabled = true
    notes.push('Retention enabled is turned on: a retention period does nothing while retention is off.')
  }
  const namespace = typeof edits.namespace === 'string' ? edits.namespace.trim() : stored.namespace
  const task = typeof edits.task === 'string' ? edits.task.trim() : stored.task
  const before: Record<string, unknown> = { namespace: stored.namespace, task: stored.task, ...stored.options }
  const after: Record<string, unknown> = { namespace, task, ...options }
  const changes = [...TAGS, ...optionOrder(options)]
    .filter((key) => before[key] !== after[key])
    .map((option) => ({ option, before: before[option], after: after[option] }))
  return { body: { queue, namespace, task, options }, changes, notes }
}

/** Whether two stored configurations are the same (the broker's, read again before writing). */
export function sameConfig(a: StoredConfig, b: StoredConfig): boolean {
  return JSON.stringify([a.namespace, a.task, a.options]) === JSON.stringify([b.namespace, b.task, b.options])
}

/** An option's value as shown: numbers with their unit, booleans as on/off, tags as they are. */
export function showValue(option: string, value: unknown): string {
  if (typeof value === 'boolean') return value ? 'on' : 'off'
  if (value === undefined || value === null) return '–'
  if (typeof value === 'string') return value === '' ? '(none)' : value
  const text = typeof value === 'number' ? String(value) : JSON.stringify(value)
  const unit = OPTION_LABELS[option]?.unit
  return unit === undefined ? text : `${text} ${unit}`
}
