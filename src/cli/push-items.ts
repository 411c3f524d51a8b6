/**
 * One NDJSON line of `queenctl push` as an item of `POST /api/v1/push` (docs/cli.md, "Data-plane commands",
 * docs/http-api.md, "Push"): the line is the payload, or with `--wrapped` a `{queue?, partition?, transactionId?,
 * traceId?, data}` object (the `spool inspect -o ndjson` shape, whose `_spool` and other keys are ignored). Every item
 * gets a transaction id (the line's, `--transaction-id` for the first item, else a UUIDv7), so a retried push is
 * deduplicated by the broker.
 */
import { v7 as uuidv7 } from 'uuid'
import { BadLineError, type InputLine } from './ndjson-lines.js'

/** An item of a push request. */
export interface PushItem {
  queue: string
  partition?: string
  payload: unknown
  transactionId: string
  traceId?: string
}

/** How lines become items (the flags of `push`). */
export interface PushItemOptions {
  /** The queue argument; with `--wrapped` a line's own queue is used only when it is absent. */
  queue?: string
  wrapped: boolean
  /** `--partition`: used when neither the line nor `--partition-key` names one. */
  partition?: string
  /** `--partition-key`: a dotted path into each payload whose value names the partition. */
  partitionKey?: string
  /** `--trace-id`, for items without their own. */
  traceId?: string
  /** `--transaction-id`: the transaction id of the first item. */
  transactionId?: string
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value)

/** The value at a dotted path (`customer.region`, `items.0.sku`), or undefined. */
function valueAt(payload: unknown, path: readonly string[]): unknown {
  let current = payload
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined
    current = (current as Record<string, unknown>)[key]
  }
  return current
}

function optionalString(value: unknown, field: string, line: number): string | undefined {
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'string') throw new BadLineError(line, `${field} must be a string`)
  return value
}

/** Turns lines into push items; stateful only for `--transaction-id`, which applies to the first item. */
export class PushItemBuilder {
  private readonly options: PushItemOptions
  private readonly keyPath: readonly string[] | undefined
  private first = true

  constructor(options: PushItemOptions) {
    this.options = options
    this.keyPath = options.partitionKey?.split('.')
  }

  /** The item of one line; throws a BadLineError naming the line for malformed JSON or fields. */
  build(line: InputLine): PushItem {
    let value: unknown
    try {
      value = JSON.parse(line.text) as unknown
    } catch (error) {
      throw new BadLineError(line.number, `not valid JSON (${(error as Error).message})`)
    }
    const wrapper = this.options.wrapped ? this.unwrap(value, line.number) : undefined
    const payload = wrapper ? wrapper.data : value
    const queue = this.options.queue ?? optionalString(wrapper?.queue, 'queue', line.number)
    if (queue === undefined) {
      throw new BadLineError(line.number, 'has no queue: pass the queue argument or give each line a "queue"')
    }
    const partition =
      optionalString(wrapper?.partition, 'partition', line.number) ??
      this.keyPartition(payload, line.number) ??
      this.options.partition
    const ownTransactionId = optionalString(wrapper?.transactionId, 'transactionId', line.number)
    const firstTransactionId = this.first ? this.options.transactionId : undefined
    this.first = false
    const traceId = optionalString(wrapper?.traceId, 'traceId', line.number) ?? this.options.traceId
    return {
      queue,
      ...(partition === undefined ? {} : { partition }),
      payload,
      transactionId: ownTransactionId ?? firstTransactionId ?? uuidv7(),
      ...(traceId === undefined ? {} : { traceId }),
    }
  }

  private unwrap(value: unknown, line: number): Record<string, unknown> {
    if (!isObject(value))
      throw new BadLineError(line, 'is not a JSON object ({queue?, partition?, ..., data}), as --wrapped needs')
    if (!('data' in value)) throw new BadLineError(line, 'has no "data" field, which --wrapped needs')
    return value
  }

  /** The partition named by `--partition-key`; a payload without that key falls back to `--partition`. */
  private keyPartition(payload: unknown, line: number): string | undefined {
    if (!this.keyPath) return undefined
    const value = valueAt(payload, this.keyPath)
    if (value === undefined || value === null) return undefined
    if (typeof value === 'string') return value
    if (typeof value === 'number' || typeof value === 'boolean') return String(value)
    throw new BadLineError(
      line,
      `--partition-key ${this.options.partitionKey} is an object or array, not a partition name`,
    )
  }
}
