/** Validation of acknowledgements (docs/http-api.md, "Ack" and "Ack batch"), shared with transaction ack operations. */
import type { AckItem, AckStatus } from '../../engine/ack-engine.js'
import { validationError } from '../../errors.js'
import { asObject, checkName, checkText, checkTransactionId, checkUuid, isUuid, QUEUE_MODE_GROUP } from './rules.js'

const STATUSES: Record<string, AckStatus> = {
  completed: 'completed',
  success: 'completed',
  failed: 'failed',
  dlq: 'dlq',
  retry: 'retry',
}
const MAX_ERROR_LENGTH = 4096

function parseGroup(value: unknown, field: string): string | undefined {
  if (value === undefined || value === null || value === '') return undefined
  return checkName(value, field)
}

/** Validates the fields shared by every form of ack; `fallbackGroup` applies when the item names none. */
export function parseAckFields(
  raw: Record<string, unknown>,
  field: string,
  fallbackGroup: string | undefined,
  overrideGroup?: string,
): AckItem {
  const statusRaw = raw.status ?? 'completed'
  // Own keys only: `constructor` or `toString` must not find Object.prototype's members.
  const status = typeof statusRaw === 'string' && Object.hasOwn(STATUSES, statusRaw) ? STATUSES[statusRaw] : undefined
  if (!status) throw validationError(`${field}status: must be one of completed, success, failed, dlq, retry`)
  const leaseRaw = raw.leaseId
  let leaseId: string | null = null
  if (leaseRaw !== undefined && leaseRaw !== null && leaseRaw !== '') leaseId = checkUuid(leaseRaw, `${field}leaseId`)
  let error: string | null = null
  if (raw.error !== undefined && raw.error !== null) {
    error = checkText(raw.error, `${field}error`, Number.MAX_SAFE_INTEGER).slice(0, MAX_ERROR_LENGTH)
  }
  const group =
    overrideGroup ?? parseGroup(raw.consumerGroup, `${field}consumerGroup`) ?? fallbackGroup ?? QUEUE_MODE_GROUP
  return {
    transactionId: checkTransactionId(raw.transactionId, `${field}transactionId`),
    partitionId: checkUuid(raw.partitionId, `${field}partitionId`),
    group,
    leaseId,
    status,
    error,
  }
}

/** Validates `POST /api/v1/ack`. */
export function parseAckBody(body: unknown): AckItem {
  const raw = asObject(body)
  if (typeof raw.transactionId !== 'string' || raw.transactionId === '')
    throw validationError('transactionId is required')
  if (typeof raw.partitionId !== 'string' || raw.partitionId === '') {
    throw validationError('partitionId is required to ensure message uniqueness')
  }
  return parseAckFields(raw, '', undefined)
}

/** Validates `POST /api/v1/ack/batch`: every item or nothing. */
export function parseAckBatchBody(body: unknown, maxItems: number): AckItem[] {
  const raw = asObject(body)
  const list = raw.acknowledgments
  if (!Array.isArray(list)) throw validationError('acknowledgments array is required')
  if (list.length > maxItems) throw validationError(`acknowledgments: at most ${maxItems} items per request`)
  const topGroup = parseGroup(raw.consumerGroup, 'consumerGroup')
  return list.map((entry, index) => {
    const item = asObject(entry, `acknowledgments[${index}]: must be an object`)
    if (typeof item.transactionId !== 'string' || item.transactionId === '') {
      throw validationError('Each acknowledgment must have a valid transactionId string')
    }
    if (typeof item.partitionId !== 'string' || !isUuid(item.partitionId)) {
      throw validationError('Each acknowledgment must have a valid partitionId string to ensure message uniqueness')
    }
    return parseAckFields(item, `acknowledgments[${index}].`, undefined, topGroup)
  })
}
