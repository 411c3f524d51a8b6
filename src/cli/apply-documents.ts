/**
 * The documents of `queenctl apply -f` (docs/cli.md, "Command reference"): YAML or JSON, several YAML documents
 * allowed, of kind Queue (the option set, merged like queue configure) and ConsumerGroup (a seek or a subscription
 * rewrite). Every document is checked before anything is sent; errors name the document and the field.
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

export type ApplyDocument = QueueDocument | GroupDocument

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value)

function fail(index: number, field: string, message: string): UserError {
  return new UserError(`document ${index}: ${field}: ${message}`, {
    hint: 'kinds are Queue (metadata.name, spec: queue options, namespace, task) and ConsumerGroup (spec: group, queue, seekTo or subscription)',
  })
}

function text(
  doc: Record<string, unknown>,
  index: number,
  field: string,
  value: unknown,
  required: boolean,
): string | undefined {
  void doc
  if (value === undefined || value === null) {
    if (required) throw fail(index, field, 'is required')
    return undefined
  }
  if (typeof value !== 'string' || value.trim() === '') throw fail(index, field, 'must be a non-empty string')
  return value
}

/** Parses and checks every document of `source` (named `where` in parse errors). Empty documents are skipped. */
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
    if (!isObject(value)) throw fail(index, 'document', 'must be a mapping with kind')
    const metadata = isObject(value.metadata) ? value.metadata : {}
    const spec = value.spec === undefined ? {} : value.spec
    if (!isObject(spec)) throw fail(index, 'spec', 'must be a mapping')
    switch (value.kind) {
      case 'Queue': {
        const name = text(value, index, 'metadata.name', metadata.name ?? value.name, true)!
        const { namespace, task, options: nested, ...rest } = spec
        const options = checkOptionsObject(
          nested === undefined ? rest : { ...rest, ...(nested as object) },
          `document ${index}: spec`,
        )
        result.push({
          kind: 'Queue',
          index,
          name,
          namespace: text(value, index, 'spec.namespace', namespace, false),
          task: text(value, index, 'spec.task', task, false),
          options,
        })
        return
      }
      case 'ConsumerGroup': {
        const group = text(value, index, 'spec.group', spec.group ?? metadata.name ?? value.name, true)!
        const queue = text(value, index, 'spec.queue', spec.queue, true)!
        const seekText = text(value, index, 'spec.seekTo', spec.seekTo ?? spec['seek-to'], false)
        const subscriptionText = text(value, index, 'spec.subscription', spec.subscription, false)
        if (seekText === undefined && subscriptionText === undefined)
          throw fail(index, 'spec.seekTo', 'give seekTo or subscription')
        const seekTo =
          seekText === undefined ? undefined : parseSeekTarget(seekText, { flag: `document ${index}: spec.seekTo` })
        const subscription =
          subscriptionText === undefined
            ? undefined
            : parseTime(subscriptionText, { flag: `document ${index}: spec.subscription` })
        result.push({ kind: 'ConsumerGroup', index, group, queue, seekTo, seekText, subscription })
        return
      }
      default:
        throw fail(index, 'kind', `${JSON.stringify(value.kind ?? null)} is not Queue or ConsumerGroup`)
    }
  })
  return result
}
