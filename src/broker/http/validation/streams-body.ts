/**
 * Validation of the streams routes (docs/http-api.md, "Streams"). Sink push items and the source ack reuse the
 * rules of `/push` and `/ack`; field paths in messages use the wire's snake_case names.
 */
import type {
  StreamCycleRequest,
  StreamRegistration,
  StreamStateOp,
  StreamStateQuery,
} from '../../engine/streams-engine.js'
import { validationError } from '../../errors.js'
import { parseAckFields } from './ack-body.js'
import { parsePushItem } from './push-body.js'
import { asObject, checkName, checkPayload, checkQueueName, checkText, checkUuid, QUEUE_MODE_GROUP } from './rules.js'

/** Longest stream query name. */
const MAX_NAME_LENGTH = 255
/** Longest config hash (the SDK sends a digest; this only bounds garbage). */
const MAX_CONFIG_HASH_LENGTH = 1024
/** Longest state key. */
const MAX_STATE_KEY_LENGTH = 4096

function isMissing(value: unknown): boolean {
  return value === undefined || value === null || value === ''
}

function checkOptionalBoolean(value: unknown, field: string, fallback: boolean): boolean {
  if (value === undefined || value === null) return fallback
  if (typeof value !== 'boolean') throw validationError(`${field}: must be a boolean`)
  return value
}

function checkStateKey(value: unknown, field: string): string {
  if (typeof value !== 'string' || value === '') throw validationError(`${field} is required`)
  const key = checkText(value, field, MAX_STATE_KEY_LENGTH)
  checkPayload(key, field)
  return key
}

/** Validates `POST /streams/v1/queries`. */
export function parseStreamRegistration(body: unknown): StreamRegistration {
  const raw = asObject(body)
  if (isMissing(raw.name)) throw validationError('name is required')
  const name = checkText(raw.name, 'name', MAX_NAME_LENGTH)
  checkPayload(name, 'name')
  const sourceQueue = checkQueueName(raw.source_queue, 'source_queue')
  if (isMissing(raw.config_hash)) throw validationError('config_hash is required')
  const configHash = checkText(raw.config_hash, 'config_hash', MAX_CONFIG_HASH_LENGTH)
  checkPayload(configHash, 'config_hash')
  const sinkQueue = isMissing(raw.sink_queue) ? null : checkQueueName(raw.sink_queue, 'sink_queue')
  const reset = checkOptionalBoolean(raw.reset, 'reset', false)
  return { name, sourceQueue, sinkQueue, configHash, reset }
}

function parseStateOps(value: unknown): StreamStateOp[] {
  if (value === undefined || value === null) return []
  if (!Array.isArray(value)) throw validationError('state_ops: must be an array')
  return value.map((entry, index): StreamStateOp => {
    const field = `state_ops[${index}]`
    const op = asObject(entry, `${field}: must be an object`)
    if (op.type === 'upsert') {
      const key = checkStateKey(op.key, `${field}.key`)
      if (op.value === undefined) throw validationError(`${field}.value is required`)
      checkPayload(op.value, `${field}.value`)
      return { type: 'upsert', key, value: op.value }
    }
    if (op.type === 'delete') return { type: 'delete', key: checkStateKey(op.key, `${field}.key`) }
    throw validationError(`${field}.type: must be upsert or delete`)
  })
}

/**
 * Validates `POST /streams/v1/cycle`; `maxItems` bounds push items plus state ops, and `ack.count`. Sink
 * pushes carry `producerSub` (the token's `sub` with auth on).
 */
export function parseStreamCycle(
  body: unknown,
  maxItems: number,
  producerSub: string | null = null,
): StreamCycleRequest {
  const raw = asObject(body)
  if (isMissing(raw.query_id)) throw validationError('query_id is required')
  if (isMissing(raw.partition_id)) throw validationError('partition_id is required')
  const queryId = checkUuid(raw.query_id, 'query_id')
  const partitionId = checkUuid(raw.partition_id, 'partition_id')
  const group = isMissing(raw.consumer_group) ? QUEUE_MODE_GROUP : checkName(raw.consumer_group, 'consumer_group')

  const stateOps = parseStateOps(raw.state_ops)
  const pushRaw = raw.push_items ?? []
  if (!Array.isArray(pushRaw)) throw validationError('push_items: must be an array')
  if (stateOps.length + pushRaw.length > maxItems) {
    throw validationError(`push_items, state_ops: at most ${maxItems} push items and state ops per cycle`)
  }
  const pushItems = pushRaw.map((item, index) => parsePushItem(item, `push_items[${index}]`, ['payload'], producerSub))

  let ack: StreamCycleRequest['ack'] = null
  if (raw.ack !== undefined && raw.ack !== null) {
    const ackRaw = asObject(raw.ack, 'ack: must be an object or null')
    if (isMissing(ackRaw.transactionId)) throw validationError('ack.transactionId is required')
    let count = 1
    if (ackRaw.count !== undefined && ackRaw.count !== null) {
      if (!Number.isInteger(ackRaw.count) || (ackRaw.count as number) < 1 || (ackRaw.count as number) > maxItems) {
        throw validationError(`ack.count: must be an integer from 1 to ${maxItems}`)
      }
      count = ackRaw.count as number
    }
    // The partition and group of the ack are the cycle's; the ack object carries neither.
    const item = parseAckFields({ ...ackRaw, partitionId }, 'ack.', undefined, group)
    ack = { item, count }
  }

  const releaseLease = checkOptionalBoolean(raw.release_lease, 'release_lease', true)
  return { queryId, partitionId, stateOps, pushItems, ack, releaseLease }
}

/**
 * Validates `POST /streams/v1/state/get`. Throws the usual 400 errors; the route renders them in this
 * route's shape, `{success:false, error, rows:[]}`.
 */
export function parseStreamStateQuery(body: unknown): StreamStateQuery {
  const raw = asObject(body)
  if (isMissing(raw.query_id) || isMissing(raw.partition_id)) {
    throw validationError('query_id and partition_id are required')
  }
  const queryId = checkUuid(raw.query_id, 'query_id')
  const partitionId = checkUuid(raw.partition_id, 'partition_id')

  let keys: string[] | null = null
  if (raw.keys !== undefined && raw.keys !== null) {
    if (!Array.isArray(raw.keys)) throw validationError('keys: must be an array of strings')
    const list = raw.keys.map((key, index) => {
      if (typeof key !== 'string') throw validationError('keys: must be an array of strings')
      checkPayload(key, `keys[${index}]`)
      return key
    })
    keys = list.length === 0 ? null : list
  }
  let keyPrefix: string | null = null
  if (raw.key_prefix !== undefined && raw.key_prefix !== null && raw.key_prefix !== '') {
    if (typeof raw.key_prefix !== 'string') throw validationError('key_prefix: must be a string')
    checkPayload(raw.key_prefix, 'key_prefix')
    keyPrefix = raw.key_prefix
  }
  let ripeAtOrBefore: number | null = null
  if (raw.ripe_at_or_before !== undefined && raw.ripe_at_or_before !== null) {
    if (typeof raw.ripe_at_or_before !== 'number' || !Number.isFinite(raw.ripe_at_or_before)) {
      throw validationError('ripe_at_or_before: must be a number (epoch milliseconds)')
    }
    ripeAtOrBefore = raw.ripe_at_or_before
  }
  return { queryId, partitionId, keys, keyPrefix, ripeAtOrBefore }
}
