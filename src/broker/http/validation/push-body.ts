/** Validation of push items (docs/http-api.md, "Push"), shared by `/push`, transaction push ops and stream sinks. */
import { newUuidV7 } from '../../ids.js'
import { validationError } from '../../errors.js'
import {
  checkName,
  checkOptionalUuid,
  checkPayload,
  checkQueueName,
  checkTransactionId,
  DEFAULT_PARTITION,
} from './rules.js'
import type { PushItem } from '../../engine/push-item.js'

/**
 * Validates one item; `field` is its path for error messages, e.g. `items[3]`. `producerSub` is the
 * producer's identity from the token (never from the body).
 */
export function parsePushItem(
  raw: unknown,
  field: string,
  payloadKeys: readonly string[] = ['payload'],
  producerSub: string | null = null,
): PushItem {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw validationError(`${field}: must be an object`)
  const item = raw as Record<string, unknown>
  const queue = checkQueueName(item.queue, `${field}.queue`, `${field}.queue: Queue must be a string`)
  const partition =
    item.partition === undefined || item.partition === null
      ? DEFAULT_PARTITION
      : checkName(item.partition, `${field}.partition`)
  const payloadKey = payloadKeys.find((key) => item[key] !== undefined)
  const payload = payloadKey === undefined ? null : item[payloadKey]
  checkPayload(payload, `${field}.${payloadKey ?? 'payload'}`)
  const generated = item.transactionId === undefined || item.transactionId === null
  const transactionId = generated ? newUuidV7() : checkTransactionId(item.transactionId, `${field}.transactionId`)
  const traceId = checkOptionalUuid(item.traceId, `${field}.traceId`)
  return { queue, partition, payload, transactionId, generatedTransactionId: generated, traceId, producerSub }
}

/** Validates the body of `POST /api/v1/push`; every item or nothing. */
export function parsePushBody(body: unknown, maxItems: number, producerSub: string | null): PushItem[] {
  const items = (body as { items?: unknown } | null)?.items
  if (!Array.isArray(items)) throw validationError('items array is required')
  if (items.length > maxItems) throw validationError(`items: at most ${maxItems} items per request`)
  return items.map((item, index) => parsePushItem(item, `items[${index}]`, ['payload'], producerSub))
}
