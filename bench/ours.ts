/**
 * Our broker over HTTP (docs/http-api.md, "Shared objects" and "Data plane"): push batches to `POST /api/v1/push`,
 * long-poll `GET /api/v1/pop/queue/:queue`, ack with `POST /api/v1/ack/batch`. The broker is a child process
 * (broker-process.ts) so its CPU and RSS are its own.
 */
import {
  deliveryOf,
  type Adapter,
  type BenchConsumer,
  type BenchQueue,
  type ConsumerOptions,
  type Delivery,
  type OutgoingMessage,
  type QueueSpec,
  type ScenarioId,
} from './adapter.js'
import pg from 'pg'
import type { BrokerProcess } from './broker-process.js'
import { HttpClient } from './load.js'
import type { PgConnection } from './postgres.js'
import { chunks, OURS_SEED_CHUNK, OURS_SEED_SQL } from './seed.js'

interface PoppedMessage {
  transactionId?: string
  partitionId?: string
  leaseId?: string
  data?: unknown
}

interface OursDelivery extends Delivery {
  transactionId: string
  partitionId: string
  leaseId: string
}

/** The scenarios the gateway runs: its cost over the broker's own figure in the same run (bench/README.md). */
const GATEWAY_SCENARIOS: readonly ScenarioId[] = ['push-1', 'push-100', 'drain', 'e2e']

/** Read-back pops: large auto-acked batches (no ack round trip; the broker's maximum batch is 10 000). */
const READ_BACK_BATCH = 5000
const READ_BACK_READERS = 4

function partitionName(partition: number): string {
  return `p${partition}`
}

/** The delivery, or producer -1 when the transaction id and the payload disagree (a corrupted message). */
function toDelivery(message: PoppedMessage): OursDelivery {
  const id = message.transactionId ?? ''
  const delivery = deliveryOf(message.data, {
    transactionId: id,
    partitionId: message.partitionId ?? '',
    leaseId: message.leaseId ?? '',
  })
  if (!id.endsWith(`.${delivery.producer}.${delivery.seq}`)) delivery.producer = -1
  return delivery
}

function messagesOf(body: unknown): PoppedMessage[] {
  if (typeof body !== 'object' || body === null) return []
  const messages = (body as { messages?: unknown }).messages
  return Array.isArray(messages) ? (messages as PoppedMessage[]) : []
}

class OursConsumer implements BenchConsumer {
  private readonly client: HttpClient
  private readonly queue: string
  private readonly options: ConsumerOptions
  private readonly path: string

  constructor(client: HttpClient, queue: string, options: ConsumerOptions) {
    this.client = client
    this.queue = queue
    this.options = options
    const query = new URLSearchParams({
      batch: String(options.batch),
      wait: 'true',
      timeout: String(options.waitMs),
      partitions: String(options.partitionsPerPop),
    })
    if (options.group) query.set('consumerGroup', options.group)
    this.path = `/api/v1/pop/queue/${encodeURIComponent(queue)}?${query.toString()}`
  }

  async next(signal?: AbortSignal): Promise<Delivery[]> {
    try {
      const answer = await this.client.request('GET', this.path, undefined, {
        timeoutMs: this.options.waitMs + 5000,
        signal,
      })
      const messages = messagesOf(answer.body)
      if (messages.length === 0) {
        const error = (answer.body as { error?: unknown } | undefined)?.error
        if ((answer.status >= 300 && answer.status !== 204) || (error && error !== 'no_available_partition')) {
          throw new Error(`pop: HTTP ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`)
        }
      }
      return messages.map(toDelivery)
    } catch (error) {
      if (signal?.aborted) return []
      throw error
    }
  }

  async ack(deliveries: readonly Delivery[]): Promise<number> {
    const items = deliveries as readonly OursDelivery[]
    if (items.length === 0) return 0
    const answer = await this.client.request('POST', '/api/v1/ack/batch', {
      acknowledgments: items.map((item) => ({
        transactionId: item.transactionId,
        partitionId: item.partitionId,
        leaseId: item.leaseId,
      })),
      consumerGroup: this.options.group ?? null,
    })
    if (!Array.isArray(answer.body)) {
      throw new Error(`ack: HTTP ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`)
    }
    return (answer.body as { success?: boolean }[]).filter((result) => result.success !== true).length
  }

  close(): Promise<void> {
    return Promise.resolve()
  }
}

class OursQueue implements BenchQueue {
  private readonly client: HttpClient
  private readonly spec: QueueSpec
  private readonly seedPool: (() => pg.Pool) | undefined

  constructor(client: HttpClient, spec: QueueSpec, seedPool: (() => pg.Pool) | undefined) {
    this.client = client
    this.spec = spec
    this.seedPool = seedPool
  }

  /** Through queen.push_messages, the push path's own function (seed.ts). */
  async seedBacklog(first: number, count: number): Promise<void> {
    if (!this.seedPool) throw new Error('seeding needs the PostgreSQL connection (OursAdapter without one)')
    const pool = this.seedPool()
    for (const [from, to] of chunks(first, count, OURS_SEED_CHUNK)) {
      const result = await pool.query<{ queued: number; items: number }>(OURS_SEED_SQL, [
        this.spec.name,
        this.spec.name,
        this.spec.partitions,
        from,
        to,
      ])
      const row = result.rows[0]
      if (!row || row.queued !== to - from + 1) {
        throw new Error(`seed ${from}-${to}: ${row?.queued ?? 0} of ${to - from + 1} messages queued`)
      }
    }
  }

  async push(messages: readonly OutgoingMessage[]): Promise<boolean[]> {
    const answer = await this.client.request('POST', '/api/v1/push', {
      items: messages.map((message) => ({
        queue: this.spec.name,
        partition: partitionName(message.partition),
        payload: message.payload,
        transactionId: message.id,
      })),
    })
    if (!Array.isArray(answer.body)) {
      throw new Error(`push: HTTP ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`)
    }
    const results = answer.body as { status?: string }[]
    // "buffered" means spooled and fsynced: stored, delivered after replay; the ledger checks that it is.
    return messages.map((_, index) => {
      const status = results[index]?.status
      return status === 'queued' || status === 'buffered'
    })
  }

  consumer(options: ConsumerOptions): BenchConsumer {
    return new OursConsumer(this.client, this.spec.name, options)
  }

  async readBack(onMessage: (producer: number, seq: number) => void, done: () => boolean, deadline: number) {
    const query = new URLSearchParams({
      batch: String(READ_BACK_BATCH),
      wait: 'true',
      timeout: '500',
      partitions: String(Math.min(this.spec.partitions, 100)),
      autoAck: 'true',
    })
    const path = `/api/v1/pop/queue/${encodeURIComponent(this.spec.name)}?${query.toString()}`
    const reader = async () => {
      while (!done() && performance.now() < deadline) {
        const answer = await this.client.request('GET', path, undefined, { timeoutMs: 10_000 })
        for (const message of messagesOf(answer.body)) {
          const delivery = toDelivery(message)
          onMessage(delivery.producer, delivery.seq)
        }
      }
    }
    await Promise.all(Array.from({ length: READ_BACK_READERS }, reader))
  }

  close(): Promise<void> {
    // The queue is kept: deleting it would put its cost into the next scenario's measurement. Names are
    // unique per run, so nothing reads it again.
    return Promise.resolve()
  }
}

/** Opens queues on a running broker. */
export class OursAdapter implements Adapter {
  readonly name: 'ours' | 'gateway'
  readonly role = 'subject' as const
  readonly label: string
  private readonly broker: BrokerProcess
  private readonly client: HttpClient
  private readonly connection: PgConnection | undefined
  private pool: pg.Pool | undefined

  /**
   * `connection` (the broker's database) enables {@link BenchQueue.seedBacklog}. `through` sends every request to
   * the gateway at its URL with its headers instead (bench/gateway.ts); the broker is still the one measured.
   */
  constructor(
    broker: BrokerProcess,
    label: string,
    connection?: PgConnection,
    through?: { name: 'gateway'; url: string; headers: Record<string, string> },
  ) {
    this.broker = broker
    this.label = label
    this.name = through?.name ?? 'ours'
    this.client = new HttpClient(through?.url ?? broker.url, 256, through?.headers)
    this.connection = connection
  }

  private seedPool(): pg.Pool {
    this.pool ??= new pg.Pool({ ...this.connection, max: 2 })
    return this.pool
  }

  supports(scenario: ScenarioId): boolean {
    // Through the gateway: the scenarios issue 36 compares (throughput, latency), not the broker-only ones.
    return this.name === 'ours' || GATEWAY_SCENARIOS.includes(scenario)
  }

  brokerPid(): number | undefined {
    return this.broker.pid
  }

  serverUrl(): string {
    return this.broker.url
  }

  openQueue(spec: QueueSpec): Promise<BenchQueue> {
    return Promise.resolve(new OursQueue(this.client, spec, this.connection ? () => this.seedPool() : undefined))
  }

  async stop(): Promise<void> {
    await this.client.close()
    await this.pool?.end()
  }
}
