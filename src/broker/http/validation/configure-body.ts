/**
 * Validation of `POST /api/v1/configure` (docs/http-api.md, "Configure a queue"): a full replace of a queue's options.
 */
import { validationError } from '../../errors.js'
import {
  defaultQueueOptions,
  derivedTags,
  LEGACY_OPTION_KEYS,
  QUEUE_OPTIONS,
  type QueueOptionName,
  type QueueOptions,
} from '../../engine/queue-options.js'
import { asObject, checkQueueName, checkText } from './rules.js'

/** A validated configure request. */
export interface ConfigureRequest {
  queue: string
  namespace: string
  task: string
  options: QueueOptions
  /** Legacy keys that were present and not stored. */
  ignored: string[]
  /** What the response's `options` echoes: the stored options plus the legacy keys as they were sent. */
  echoedOptions: Record<string, unknown>
}

function tag(value: unknown, field: string, derived: string): string {
  if (value === undefined || value === null) return derived
  const text = checkText(value, field, 255)
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(text)) throw validationError(`${field}: must not contain control characters`)
  return text
}

/** Validates the body; `encryptionKeyConfigured` decides whether encryptionEnabled may be true. */
export function parseConfigureBody(body: unknown, encryptionKeyConfigured: boolean): ConfigureRequest {
  const raw = asObject(body)
  const queue = checkQueueName(raw.queue, 'queue', 'queue is required')
  const derived = derivedTags(queue)
  const options = defaultQueueOptions()
  const ignored: string[] = []
  const legacyValues: Record<string, unknown> = {}
  const given = asObject(raw.options, 'options: must be an object')
  for (const [key, value] of Object.entries(given)) {
    if ((LEGACY_OPTION_KEYS as readonly string[]).includes(key)) {
      ignored.push(key)
      legacyValues[key] = value
      continue
    }
    if (!Object.hasOwn(QUEUE_OPTIONS, key)) throw validationError(`options.${key} is not a known option`)
    const name = key as QueueOptionName
    const rule = QUEUE_OPTIONS[name]
    if (rule.kind === 'boolean') {
      if (typeof value !== 'boolean') throw validationError(`options.${key}: must be a boolean`)
      ;(options as Record<string, boolean | number>)[name] = value
    } else {
      if (typeof value !== 'number' || !Number.isInteger(value))
        throw validationError(`options.${key}: must be an integer`)
      if (value < rule.min || value > rule.max) {
        throw validationError(`options.${key}: must be between ${rule.min} and ${rule.max}`)
      }
      ;(options as Record<string, boolean | number>)[name] = value
    }
  }
  if (options.encryptionEnabled && !encryptionKeyConfigured) {
    throw validationError('options.encryptionEnabled: QUEEN_ENCRYPTION_KEY is not configured on this broker')
  }
  return {
    queue,
    namespace: tag(raw.namespace, 'namespace', derived.namespace),
    task: tag(raw.task, 'task', derived.task),
    options,
    ignored,
    // The JS client checks that every option it sent comes back unchanged, legacy keys included.
    echoedOptions: { ...options, ...legacyValues },
  }
}
