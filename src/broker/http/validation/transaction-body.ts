/** Validation of `POST /api/v1/transaction` (docs/http-api.md, "Transaction"). */
import type { TransactionOperation } from '../../engine/transaction-engine.js'
import { validationError } from '../../errors.js'
import { parseAckFields } from './ack-body.js'
import { parsePushItem } from './push-body.js'
import { asObject, checkUuid } from './rules.js'

/** The validated body: operations in order and the leases that must be live at commit. */
export interface TransactionBody {
  operations: TransactionOperation[]
  requiredLeases: string[]
}

/**
 * Validates the whole transaction; one bad operation rejects it before anything runs. Push items carry
 * `producerSub` (the token's `sub` with auth on); one in the body is never read.
 */
export function parseTransactionBody(
  body: unknown,
  maxItems: number,
  producerSub: string | null = null,
): TransactionBody {
  const raw = asObject(body)
  const list = raw.operations
  if (!Array.isArray(list)) throw validationError('operations array required')
  if (list.length === 0) throw validationError('operations array cannot be empty')
  let total = 0
  const operations = list.map((entry, index): TransactionOperation => {
    const op = asObject(entry, `operations[${index}]: must be an object`)
    const field = `operations[${index}]`
    if (op.type === 'push') {
      if (Array.isArray(op.items)) {
        total += op.items.length
        return {
          type: 'push',
          items: op.items.map((item, itemIndex) =>
            parsePushItem(item, `${field}.items[${itemIndex}]`, ['payload', 'data'], producerSub),
          ),
        }
      }
      total += 1
      return { type: 'push', items: [parsePushItem(op, field, ['payload', 'data'], producerSub)] }
    }
    if (op.type === 'ack') {
      total += 1
      if (typeof op.transactionId !== 'string' || op.transactionId === '') {
        throw validationError(`${field}.transactionId is required`)
      }
      return { type: 'ack', item: parseAckFields(op, `${field}.`, undefined) }
    }
    // An object is shown as JSON: String() of {"toString":1} throws (a 500 the fuzz test found).
    const shown = op.type !== null && typeof op.type === 'object' ? JSON.stringify(op.type) : String(op.type)
    throw validationError(`${field}.type: Unknown operation type: ${shown}`)
  })
  if (total > maxItems) throw validationError(`operations: at most ${maxItems} push items and acks per transaction`)
  const leasesRaw = raw.requiredLeases ?? []
  if (!Array.isArray(leasesRaw)) throw validationError('requiredLeases: must be an array of lease ids')
  const requiredLeases = leasesRaw.map((lease, index) => checkUuid(lease, `requiredLeases[${index}]`))
  return { operations, requiredLeases }
}
