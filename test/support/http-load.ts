/**
 * The plain-HTTP load of the ledger-checked reliability tests: one producer per partition with one
 * request in flight and seq increasing, every outcome recorded; a draining consumer that records every
 * delivery and acks it.
 */
import { http } from './broker.js'
import type { Ledger } from './ledger.js'

/** Pushes `count` messages to one partition, one request at a time; every outcome goes to the ledger. */
export async function produce(
  url: string,
  ledger: Ledger,
  queue: string,
  partition: string,
  from: number,
  count: number,
): Promise<void> {
  for (let seq = from; seq < from + count; seq++) {
    const txId = `${partition}-${seq}`
    let outcome: 'ok' | 'buffered' | 'fail' | 'unknown' = 'unknown'
    try {
      const response = await http({ url }, 'POST', '/api/v1/push', {
        items: [{ queue, partition, transactionId: txId, payload: { partition, seq } }],
      })
      const status = response.status === 200 ? response.body[0].status : 'failed'
      outcome = status === 'queued' || status === 'duplicate' ? 'ok' : status === 'buffered' ? 'buffered' : 'fail'
    } catch {
      outcome = 'unknown'
    }
    ledger.push({ txId, partition, seq, outcome })
  }
}

/** Drains the queue for a group, acking everything, until `expected` distinct ids were seen or time runs out. */
export async function drain(
  url: string,
  ledger: Ledger,
  queue: string,
  group: string,
  expected: number,
  timeoutMs = 30_000,
): Promise<void> {
  const seen = new Set<string>()
  const deadline = Date.now() + timeoutMs
  while (seen.size < expected && Date.now() < deadline) {
    const response = await http(
      { url },
      'GET',
      `/api/v1/pop/queue/${queue}?consumerGroup=${group}&batch=50&wait=true&timeout=500`,
    )
    const messages = response.body?.messages ?? []
    for (const message of messages) {
      ledger.deliver({ txId: message.transactionId, group, partition: message.partition })
      seen.add(message.transactionId)
    }
    if (messages.length > 0) {
      await http({ url }, 'POST', '/api/v1/ack/batch', {
        consumerGroup: group,
        acknowledgments: messages.map((message: any) => ({
          transactionId: message.transactionId,
          partitionId: message.partitionId,
          leaseId: message.leaseId,
        })),
      })
    }
  }
}
