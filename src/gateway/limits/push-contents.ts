/**
 * What a request would add to a tenant (docs/gateway.md, "Quotas and rate limits"): the messages and payload bytes of
 * a push or of a transaction's push operations, and the queues and partitions it names (a configure names one queue
 * and its `Default` partition). Read from the body the gateway holds anyway; a body the brokers would refuse (not
 * JSON, no items) adds nothing here and is left to them to answer.
 */

/** A queue and partition a request names. */
export interface Target {
  readonly queue: string
  readonly partition: string
}

/** What a request adds. */
export interface RequestContents {
  readonly messages: number
  /** Each pushed item's payload as compact JSON (a missing payload is `null`, 4 bytes). */
  readonly payloadBytes: number
  /** Distinct (queue, partition) pairs it pushes to or configures. */
  readonly targets: readonly Target[]
}

export const NOTHING: RequestContents = { messages: 0, payloadBytes: 0, targets: [] }

/** Whether the route can add messages, queues or partitions (others are not parsed). */
export function mayAdd(method: string, path: string): boolean {
  return (
    method === 'POST' && (path === '/api/v1/push' || path === '/api/v1/transaction' || path === '/api/v1/configure')
  )
}

type Json = Record<string, unknown>

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)

class Tally {
  messages = 0
  payloadBytes = 0
  private readonly seen = new Map<string, Target>()

  private readonly bodyBytes: number

  constructor(bodyBytes: number) {
    this.bodyBytes = bodyBytes
  }

  item(item: unknown, payloadKeys: readonly string[]): void {
    if (!isObject(item) || typeof item.queue !== 'string') return
    this.messages += 1
    const key = payloadKeys.find((name) => name in item)
    this.payloadBytes += this.sizeOf(key === undefined ? null : (item[key] ?? null))
    this.target(item.queue, typeof item.partition === 'string' ? item.partition : 'Default')
  }

  /** A payload too deep to write back as JSON counts as the whole body: never less than it could be. */
  private sizeOf(payload: unknown): number {
    try {
      return Buffer.byteLength(JSON.stringify(payload))
    } catch {
      return this.bodyBytes
    }
  }

  target(queue: string, partition: string): void {
    this.seen.set(`${queue}\u0000${partition}`, { queue, partition })
  }

  contents(): RequestContents {
    return { messages: this.messages, payloadBytes: this.payloadBytes, targets: [...this.seen.values()] }
  }
}

/** The contents of a `mayAdd` request's body. */
export function requestContents(path: string, body: Buffer | undefined): RequestContents {
  if (!body || body.length === 0) return NOTHING
  let parsed: unknown
  try {
    parsed = JSON.parse(body.toString('utf8'))
  } catch {
    return NOTHING
  }
  if (!isObject(parsed)) return NOTHING
  const tally = new Tally(body.length)
  if (path === '/api/v1/push' && Array.isArray(parsed.items)) {
    for (const item of parsed.items) tally.item(item, ['payload'])
  } else if (path === '/api/v1/transaction' && Array.isArray(parsed.operations)) {
    for (const operation of parsed.operations) {
      if (!isObject(operation) || operation.type !== 'push') continue
      if (Array.isArray(operation.items)) for (const item of operation.items) tally.item(item, ['payload', 'data'])
      else tally.item(operation, ['payload', 'data'])
    }
  } else if (path === '/api/v1/configure' && typeof parsed.queue === 'string') {
    tally.target(parsed.queue, 'Default')
  }
  return tally.contents()
}
