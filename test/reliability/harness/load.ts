/**
 * The mixed load of the fault harness, all through the real Queen JavaScript client (test/compat/client.ts):
 *
 * - producers push to `rel-orders` with their own transaction ids, one request in flight per partition,
 *   retrying the same id until the push is acknowledged (queued, duplicate or buffered), so a partition's
 *   seq order is its acknowledged order;
 * - consumer group `billing` long-polls `rel-orders` and acks;
 * - queue-mode consumers (no group) long-poll `rel-orders` and settle each message in a transaction that
 *   acks it and pushes a derived message to `rel-derived` (requiredLeases: a stale lease commits nothing);
 * - consumer group `audit` long-polls `rel-derived` and acks.
 *
 * Every answer, delivery and confirmed ack goes to the ledger. Every client stays on its own broker, so
 * what a faulted broker answered is seen as it answered it.
 */
import { closeQueen, openQueen } from '../../compat/client.js'
import type { Ledger, PushEntry } from '../../support/ledger.js'
import type { BrokerNode } from './broker-node.js'

export const ORDERS = 'rel-orders'
export const DERIVED = 'rel-derived'
export const BILLING = 'billing'
export const AUDIT = 'audit'
/** The group name the ledger uses for queue-mode deliveries. */
export const QUEUE_MODE = '__QUEUE_MODE__'
/** Lease of both queues, s: redelivery after a crash comes this long after the pop. */
export const LEASE_SECONDS = 5

/** Each partition pushes at most once per this many ms. */
const PUSH_INTERVAL_MS = 200

const CLIENT_OPTIONS = { timeoutMillis: 15_000, retryAttempts: 1, enableFailover: false }

/** Which ledger entries each group must receive. */
export const EXPECTED: Record<string, (entry: PushEntry) => boolean> = {
  [BILLING]: (entry) => entry.partition.startsWith(`${ORDERS}/`),
  [QUEUE_MODE]: (entry) => entry.partition.startsWith(`${ORDERS}/`),
  [AUDIT]: (entry) => entry.partition.startsWith(`${DERIVED}/`),
}

/** A running load; {@link stopProducers} then {@link drain} end it. */
export class Load {
  private producing = true
  private consuming = true
  private readonly running: Promise<void>[] = []
  private readonly consumersRunning: Promise<void>[] = []
  private readonly ledger: Ledger
  private readonly brokers: BrokerNode[]
  private readonly errors: string[] = []

  constructor(ledger: Ledger, brokers: BrokerNode[]) {
    this.ledger = ledger
    this.brokers = brokers
  }

  /** Creates the queues through the first broker. */
  async setup(): Promise<void> {
    const admin = await openQueen(this.brokers[0]!, CLIENT_OPTIONS)
    try {
      for (const queue of [ORDERS, DERIVED]) {
        await admin.queue(queue).config({ leaseTime: LEASE_SECONDS, retryLimit: 1000 }).create()
      }
    } finally {
      await closeQueen(admin)
    }
  }

  /** Starts `producersPerBroker` producers (two partitions each) and the consumers on every broker. */
  start(producersPerBroker: number): void {
    this.brokers.forEach((broker, index) => {
      for (let p = 0; p < producersPerBroker; p++) this.running.push(this.producer(broker, `b${index + 1}p${p}`))
      this.consumersRunning.push(this.groupConsumer(broker, ORDERS, BILLING))
      this.consumersRunning.push(this.queueModeConsumer(broker))
      this.consumersRunning.push(this.groupConsumer(broker, DERIVED, AUDIT))
    })
  }

  /** Stops producing and waits for the producers' last answers. */
  async stopProducers(): Promise<void> {
    this.producing = false
    await Promise.all(this.running)
  }

  /**
   * Lets the consumers run until every acknowledged push has reached every group, then stops them. It gives
   * up only when deliveries stop growing for `idleMs`, or after `capMs` in all: a consumer that fell behind
   * under load (the long profile's queue-mode transactions) is still catching up, not losing anything.
   */
  async drain(idleMs: number, capMs: number, complete: () => boolean, delivered: () => number): Promise<boolean> {
    const cap = Date.now() + capMs
    let last = delivered()
    let lastGrowth = Date.now()
    while (!complete() && Date.now() < cap && Date.now() - lastGrowth < idleMs) {
      await new Promise((resolve) => setTimeout(resolve, 250))
      if (delivered() > last) {
        last = delivered()
        lastGrowth = Date.now()
      }
    }
    this.consuming = false
    await Promise.all(this.consumersRunning)
    return complete()
  }

  /** Unexpected client-side errors (bugs of the load itself), for the report. */
  loadErrors(): string[] {
    return this.errors
  }

  private async producer(broker: BrokerNode, name: string): Promise<void> {
    const queen = await openQueen(broker, CLIENT_OPTIONS)
    const partitions = [`${name}a`, `${name}b`]
    try {
      // The two partitions advance side by side, one request in flight each.
      await Promise.all(partitions.map((partition) => this.producePartition(queen, broker, partition)))
    } finally {
      await closeQueen(queen)
    }
  }

  private async producePartition(queen: any, broker: BrokerNode, partition: string): Promise<void> {
    for (let seq = 0; this.producing; seq++) {
      const txId = `${partition}-${seq}`
      const t0 = Date.now()
      // A steady pace, so that buffered answers (immediate) do not outrun the consumers.
      const next = t0 + PUSH_INTERVAL_MS
      let outcome: PushEntry['outcome'] = 'unknown'
      while (outcome !== 'ok' && outcome !== 'buffered') {
        const answer = await pushOnce(queen, partition, txId, seq)
        this.ledger.answer({ txId, answer, broker: broker.name, t: Date.now() })
        if (answer === 'queued' || answer === 'duplicate') outcome = 'ok'
        else if (answer === 'buffered') outcome = 'buffered'
        else {
          outcome = answer.startsWith('failed') ? 'fail' : 'unknown'
          if (!this.producing) break
          await new Promise((resolve) => setTimeout(resolve, 200))
        }
      }
      this.ledger.push({ txId, partition: `${ORDERS}/${partition}`, seq, outcome, t0, t1: Date.now() })
      if (outcome !== 'ok' && outcome !== 'buffered') return
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - Date.now())))
    }
  }

  private async groupConsumer(broker: BrokerNode, queue: string, group: string): Promise<void> {
    const queen = await openQueen(broker, CLIENT_OPTIONS)
    try {
      while (this.consuming) {
        const sent = Date.now()
        const messages = await popSafely(() =>
          queen.queue(queue).group(group).batch(10).wait(true).timeoutMillis(1000).pop(),
        )
        if (messages.length === 0) continue
        this.record(messages, queue, group, broker, sent)
        let answer: any
        try {
          answer = await queen.ack(messages, true, { group })
        } catch {
          continue // the lease expires and the messages come again
        }
        if (answer?.success !== true) continue
        messages.forEach((message, index) => {
          if (answer[String(index)]?.success === true) {
            this.ledger.acked({ txId: keyOf(message), group, t: Date.now() })
          }
        })
      }
    } catch (error) {
      this.errors.push(`${group} consumer on ${broker.name}: ${String(error)}`)
    } finally {
      await closeQueen(queen)
    }
  }

  private async queueModeConsumer(broker: BrokerNode): Promise<void> {
    const queen = await openQueen(broker, CLIENT_OPTIONS)
    try {
      while (this.consuming) {
        const sent = Date.now()
        const messages = await popSafely(() => queen.queue(ORDERS).batch(20).wait(true).timeoutMillis(1000).pop())
        if (messages.length === 0) continue
        this.record(messages, ORDERS, QUEUE_MODE, broker, sent)
        // One transaction per pop (one partition): ack every message and push its derived message, in order.
        // Not retried: the lease makes a second commit of the same acks fail, and a redelivery redoes it.
        const partition = String(messages[0].partition)
        const derived = messages.map((message) => ({ key: `d-${keyOf(message)}`, seq: Number(message.data?.seq) }))
        const t0 = Date.now()
        let outcome: PushEntry['outcome']
        let answer: string
        try {
          const transaction = queen.transaction()
          for (const message of messages) transaction.ack(message)
          await transaction
            .queue(DERIVED)
            .partition(partition)
            .push(derived.map((data) => ({ data })))
            .commit()
          outcome = 'ok'
          answer = 'queued'
        } catch (error) {
          outcome = 'unknown'
          answer = `error: ${errorText(error)}`
        }
        const t1 = Date.now()
        for (const { key, seq } of derived) {
          this.ledger.answer({ txId: key, answer, broker: broker.name, t: t1 })
          this.ledger.push({ txId: key, partition: `${DERIVED}/${partition}`, seq, outcome, t0, t1 })
        }
        if (outcome === 'ok') {
          for (const message of messages) this.ledger.acked({ txId: keyOf(message), group: QUEUE_MODE, t: t1 })
        }
      }
    } catch (error) {
      this.errors.push(`queue-mode consumer on ${broker.name}: ${String(error)}`)
    } finally {
      await closeQueen(queen)
    }
  }

  private record(messages: any[], queue: string, group: string, broker: BrokerNode, sent: number): void {
    const t = Date.now()
    for (const message of messages) {
      this.ledger.deliver({
        txId: keyOf(message),
        group,
        partition: `${queue}/${String(message.partition)}`,
        leaseId: message.leaseId,
        t,
        sent,
        broker: broker.name,
      })
    }
  }
}

/** The ledger id of a delivered message: the key the producer put in its payload. */
function keyOf(message: any): string {
  return String(message.data?.key ?? message.transactionId)
}

/** One push attempt; answers the item's status, `failed: <error>` or `error: <client error>`. */
async function pushOnce(queen: any, partition: string, txId: string, seq: number): Promise<string> {
  let failure: string | undefined
  try {
    const results = await queen
      .queue(ORDERS)
      .partition(partition)
      .push([{ transactionId: txId, data: { key: txId, seq } }])
      .onError((items: any[], error: Error) => {
        // The client reports a request that never got an answer as failed items too: that is no broker answer.
        const text = String(items[0]?.error ?? error.message)
        failure = /fetch failed|ECONN|socket|abort|timeout/i.test(text)
          ? `error: ${errorText(error)}`
          : `failed: ${text}`
      })
    if (failure) return failure
    const status = Array.isArray(results) ? results[0]?.status : undefined
    return typeof status === 'string' ? status : `error: unexpected answer ${JSON.stringify(results)}`
  } catch (error) {
    return `error: ${errorText(error)}`
  }
}

/** A pop; a failed one (broker down, timeout) is an empty answer after a short pause. */
async function popSafely(pop: () => Promise<any[]>): Promise<any[]> {
  try {
    const messages = await pop()
    return Array.isArray(messages) ? messages : []
  } catch {
    await new Promise((resolve) => setTimeout(resolve, 200))
    return []
  }
}

/** A short, stable description of a client error (HTTP status when there is one). */
export function errorText(error: unknown): string {
  const anyError = error as { status?: number; message?: string; name?: string }
  if (anyError?.name === 'AbortError') return 'timeout'
  if (typeof anyError?.status === 'number') return `HTTP ${anyError.status}`
  const message = String(anyError?.message ?? error)
  if (/ECONNREFUSED|fetch failed|ECONNRESET|socket/i.test(message)) return 'connection refused or reset'
  return message.slice(0, 80)
}
