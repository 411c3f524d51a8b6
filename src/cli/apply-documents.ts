/**
 * The documents of `queenctl apply -f` (docs/cli.md, "Command reference"): YAML or JSON, several YAML documents
 * allowed, in the Go queenctl's flat form (kind, name, namespace, task, config / queue, seek-to: the whole
 * configuration of the queue) or the metadata/spec form (the option set, merged like queue configure), of kind Queue
 * and ConsumerGroup (a seek or a subscription rewrite). Every document is checked before anything is sent; errors
 * name the document and the key.
 */
import { parseAllDocuments } from 'yaml'
import { UserError } from './errors.js'
import { checkOptionsObject } from './queue-config.js'
import { parseSeekTarget, parseTime, type SeekTarget } from './times.js'
import type { QueueOptions } from '../broker/engine/queue-options.js'

/** A Queue document. */
export interface QueueDocument {
  kind: 'Queue'
  index: number
  name: string
  namespace?: string
  task?: string
  options: Partial<QueueOptions> & Record<string, unknown>
  /**
   * The document is the queue's whole configuration: options it leaves out go back to their defaults (the Go
   * queenctl's flat form). The metadata/spec form merges with the stored options, as queue configure does.
   */
  replace: boolean
}

/** A ConsumerGroup document: a seek of the group on the queue and/or a subscription-start rewrite. */
export interface GroupDocument {
  kind: 'ConsumerGroup'
  index: number
  group: string
  queue: string
  seekTo?: SeekTarget
  seekText?: string
  subscription?: string
}

/** A flat ConsumerGroup document without seek-to: nothing to do, said as the Go queenctl says it. */
export interface SkippedDocument {
  kind: 'Skipped'
  index: number
  name: string
  reason: string
}

export type ApplyDocument = QueueDocument | GroupDocument | SkippedDocument

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value)

const HINT =
  'flat documents (the Go queenctl form) have kind, name, namespace, task, config (Queue) or queue, seek-to (ConsumerGroup); ' +
  'the metadata/spec form has kind, metadata.name and spec'

/** Keys of each form and kind; anything else is an error naming the key and the document. */
const FLAT_KEYS: Record<'Queue' | 'ConsumerGroup', readonly string[]> = {
  Queue: ['kind', 'name', 'namespace', 'task', 'config'],
  ConsumerGroup: ['kind', 'name', 'queue', 'seek-to'],
}
const SPEC_TOP_KEYS = ['apiVersion', 'kind', 'metadata', 'spec', 'name']
const METADATA_KEYS = ['name']
const GROUP_SPEC_KEYS = ['group', 'queue', 'seekTo', 'seek-to', 'subscription']

/** The kind a document names (the Go queenctl's spellings too); Queue when a flat document names none. */
function kindOf(value: unknown, flat: boolean): 'Queue' | 'ConsumerGroup' | undefined {
  if (value === undefined && flat) return 'Queue'
  if (value === 'Queue' || value === 'queue') return 'Queue'
  if (value === 'ConsumerGroup' || value === 'consumerGroup' || value === 'cg') return 'ConsumerGroup'
  return undefined
}

/** Where an error is: `document 2 (Queue orders)`. */
function label(index: number, kind: string | undefined, name: unknown): string {
  const named = typeof name === 'string' && name !== '' ? ` ${name}` : ''
  return kind === undefined ? `document ${index}` : `document ${index} (${kind}${named})`
}

function fail(where: string, field: string, message: string): UserError {
  return new UserError(`${where}: ${field}: ${message}`, { hint: HINT })
}

function unknownKeys(where: string, value: Record<string, unknown>, known: readonly string[], prefix = ''): void {
  const unknown = Object.keys(value).filter((key) => !known.includes(key))
  if (unknown.length > 0) {
    throw new UserError(`${where}: unknown key ${prefix}${unknown[0]}`, {
      hint: `the keys here are ${known.map((key) => prefix + key).join(', ')}`,
    })
  }
}

function text(where: string, field: string, value: unknown, required: boolean): string | undefined {
  if (value === undefined || value === null) {
    if (required) throw fail(where, field, 'is required')
    return undefined
  }
  if (typeof value !== 'string' || value.trim() === '') throw fail(where, field, 'must be a non-empty string')
  return value
}

/** A `config:` block: option names as the API spells them; an explicit null restores the option's default. */
function configOptions(where: string, config: unknown): Partial<QueueOptions> & Record<string, unknown> {
  if (config === undefined || config === null) return {}
  if (!isObject(config)) throw fail(where, 'config', 'must be a mapping of queue options')
  const given = Object.fromEntries(Object.entries(config).filter(([, value]) => value !== null))
  return checkOptionsObject(given, `${where}: config`)
}

function groupDocument(
  where: string,
  index: number,
  fields: { group: unknown; queue: unknown; seek: unknown; subscription?: unknown },
  names: { group: string; queue: string; seek: string },
): GroupDocument | undefined {
  const group = text(where, names.group, fields.group, true)!
  const queue = text(where, names.queue, fields.queue, true)!
  const seekText = text(where, names.seek, fields.seek, false)
  const subscriptionText = text(where, 'spec.subscription', fields.subscription, false)
  if (seekText === undefined && subscriptionText === undefined) return undefined
  const seekTo = seekText === undefined ? undefined : parseSeekTarget(seekText, { flag: `${where}: ${names.seek}` })
  const subscription =
    subscriptionText === undefined ? undefined : parseTime(subscriptionText, { flag: `${where}: spec.subscription` })
  return { kind: 'ConsumerGroup', index, group, queue, seekTo, seekText, subscription }
}

/** A document in the Go queenctl's flat form. */
function flatDocument(value: Record<string, unknown>, index: number): ApplyDocument {
  const kind = kindOf(value.kind, true)
  const where = label(index, kind, value.name)
  if (kind === undefined) throw fail(where, 'kind', `${JSON.stringify(value.kind)} is not Queue or ConsumerGroup`)
  unknownKeys(where, value, FLAT_KEYS[kind])
  if (kind === 'Queue') {
    return {
      kind,
      index,
      name: text(where, 'name', value.name, true)!,
      namespace: text(where, 'namespace', value.namespace, false),
      task: text(where, 'task', value.task, false),
      options: configOptions(where, value.config),
      replace: true,
    }
  }
  const group = groupDocument(
    where,
    index,
    { group: value.name, queue: value.queue, seek: value['seek-to'] },
    { group: 'name', queue: 'queue', seek: 'seek-to' },
  )
  return group ?? { kind: 'Skipped', index, name: String(value.name), reason: 'has nothing to apply (no seek-to)' }
}

/** A document in the metadata/spec form. */
function specDocument(value: Record<string, unknown>, index: number): ApplyDocument {
  const kind = kindOf(value.kind, false)
  const metadata = value.metadata === undefined ? {} : value.metadata
  const name = (isObject(metadata) ? metadata.name : undefined) ?? value.name
  const where = label(index, kind, name)
  if (kind === undefined)
    throw fail(where, 'kind', `${JSON.stringify(value.kind ?? null)} is not Queue or ConsumerGroup`)
  unknownKeys(where, value, SPEC_TOP_KEYS)
  if (!isObject(metadata)) throw fail(where, 'metadata', 'must be a mapping')
  unknownKeys(where, metadata, METADATA_KEYS, 'metadata.')
  const spec = value.spec === undefined ? {} : value.spec
  if (!isObject(spec)) throw fail(where, 'spec', 'must be a mapping')
  if (kind === 'Queue') {
    const queueName = text(where, 'metadata.name', name, true)!
    const { namespace, task, options: nested, ...rest } = spec
    if (nested !== undefined && !isObject(nested)) throw fail(where, 'spec.options', 'must be a mapping')
    const options = checkOptionsObject(nested === undefined ? rest : { ...rest, ...nested }, `${where}: spec`)
    return {
      kind,
      index,
      name: queueName,
      namespace: text(where, 'spec.namespace', namespace, false),
      task: text(where, 'spec.task', task, false),
      options,
      replace: false,
    }
  }
  unknownKeys(where, spec, GROUP_SPEC_KEYS, 'spec.')
  const group = groupDocument(
    where,
    index,
    {
      group: spec.group ?? name,
      queue: spec.queue,
      seek: spec.seekTo ?? spec['seek-to'],
      subscription: spec.subscription,
    },
    { group: 'spec.group', queue: 'spec.queue', seek: 'spec.seekTo' },
  )
  if (!group) throw fail(where, 'spec.seekTo', 'give seekTo or subscription')
  return group
}

/**
 * Parses and checks every document of `source` (named `where` in parse errors) before anything is applied. Empty
 * documents are skipped; an unknown key, kind or queue option is an error naming it and the document.
 */
export function parseApplyDocuments(source: string, where: string): ApplyDocument[] {
  const parsed = parseAllDocuments(source)
  const docs = Array.isArray(parsed) ? parsed : [parsed]
  const result: ApplyDocument[] = []
  docs.forEach((doc, position) => {
    const index = position + 1
    if (doc.errors.length > 0) {
      throw new UserError(`document ${index} of ${where} is not YAML or JSON: ${doc.errors[0]!.message.split('\n')[0]}`)
    }
    const value: unknown = doc.toJS()
    if (value === null || value === undefined) return
    if (!isObject(value)) throw fail(`document ${index}`, 'document', 'must be a mapping with kind')
    const specForm = 'metadata' in value || 'spec' in value || 'apiVersion' in value
    result.push(specForm ? specDocument(value, index) : flatDocument(value, index))
  })
  return result
}
