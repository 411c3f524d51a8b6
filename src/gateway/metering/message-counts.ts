/**
 * How many messages a forwarded request pushed, delivered or acked (docs/gateway.md, "Metering"), read from the
 * broker's answer (docs/http-api.md, "Push result", "Pop answer", "Ack result"): what the broker did, not what the
 * client asked. Only the routes below have their answer read; every other answer streams through untouched.
 */

/** The routes whose answers carry message counts. */
export type MeteredRoute = 'push' | 'pop' | 'ack' | 'transaction'

export function meteredRoute(method: string, path: string): MeteredRoute | undefined {
  if (method === 'POST') {
    if (path === '/api/v1/push') return 'push'
    if (path === '/api/v1/ack' || path === '/api/v1/ack/batch') return 'ack'
    if (path === '/api/v1/transaction') return 'transaction'
    return undefined
  }
  if (method === 'GET' && (path === '/api/v1/pop' || path.startsWith('/api/v1/pop/'))) return 'pop'
  return undefined
}

function parse(text: Buffer | undefined): unknown {
  if (!text || text.length === 0) return undefined
  try {
    return JSON.parse(text.toString('utf8')) as unknown
  } catch {
    return undefined
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null

/** Pushed: results `queued` (stored) or `buffered` (spooled, stored later); not duplicates or failures. */
function pushedOf(answer: unknown): number {
  if (!Array.isArray(answer)) return 0
  return answer.filter((item) => isObject(item) && (item.status === 'queued' || item.status === 'buffered')).length
}

function deliveredOf(answer: unknown): number {
  return isObject(answer) && Array.isArray(answer.messages) ? answer.messages.length : 0
}

/** Acked: results that succeeded, except a resent ack the broker had already applied (`alreadyAcked`). */
function ackedOf(answer: unknown): number {
  if (!Array.isArray(answer)) return 0
  return answer.filter((item) => isObject(item) && item.success === true && item.alreadyAcked !== true).length
}

/** A transaction is all or nothing: its operations count when the broker answered success. */
function transactionOf(request: unknown, answer: unknown): { pushed: number; acked: number } {
  if (!isObject(answer) || answer.success !== true || !isObject(request) || !Array.isArray(request.operations)) {
    return { pushed: 0, acked: 0 }
  }
  let pushed = 0
  let acked = 0
  for (const operation of request.operations as unknown[]) {
    if (!isObject(operation)) continue
    if (operation.type === 'push') pushed += Array.isArray(operation.items) ? operation.items.length : 1
    if (operation.type === 'ack') acked += 1
  }
  return { pushed, acked }
}

/** The message counts of one answered request (2xx answers only; anything else counts none). */
export function messageCounts(
  route: MeteredRoute,
  status: number,
  requestBody: Buffer | undefined,
  answerBody: Buffer,
): { messagesPushed: number; messagesDelivered: number; messagesAcked: number } {
  const none = { messagesPushed: 0, messagesDelivered: 0, messagesAcked: 0 }
  if (status < 200 || status > 299) return none
  const answer = parse(answerBody)
  switch (route) {
    case 'push':
      return { ...none, messagesPushed: pushedOf(answer) }
    case 'pop':
      return { ...none, messagesDelivered: deliveredOf(answer) }
    case 'ack':
      return { ...none, messagesAcked: ackedOf(answer) }
    case 'transaction': {
      const counted = transactionOf(parse(requestBody), answer)
      return { ...none, messagesPushed: counted.pushed, messagesAcked: counted.acked }
    }
  }
}
