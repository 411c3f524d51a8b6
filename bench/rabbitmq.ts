/**
 * The second peer, optional (docs/performance.md, "RabbitMQ"): RabbitMQ with one durable classic queue per consumer
 * group, persistent messages and publisher confirms, driven by amqplib. It runs only when a server is at hand —
 * `RABBITMQ_URL`, or a `rabbitmq-server` on PATH that the benchmark starts privately on 127.0.0.1 (Debian: `apt-get
 * install rabbitmq-server`). Otherwise it is skipped with the reason in the report. amqplib (a devDependency) is loaded
 * only then; its types are not installed, so the part of its API used is declared here.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { accessSync, constants } from 'node:fs'
import { chown, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { readPasswdUser } from '../src/platform/postgres/system-users.js'
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
import { freePort } from './broker-process.js'
import { commandName, descendantsNamed, pidsNamed, sleep } from './measure.js'

/** The part of amqplib's promise API we use (declared here: @types/amqplib is not installed). */
interface AmqpMessage {
  content: Buffer
}
interface AmqpChannel {
  assertQueue(queue: string, options: { durable: boolean }): Promise<unknown>
  assertExchange(exchange: string, type: 'fanout', options: { durable: boolean }): Promise<unknown>
  bindQueue(queue: string, exchange: string, pattern: string): Promise<unknown>
  publish(
    exchange: string,
    routingKey: string,
    content: Buffer,
    options: { persistent: boolean },
    confirm?: (error: unknown) => void,
  ): boolean
  prefetch(count: number): Promise<unknown>
  consume(queue: string, onMessage: (message: AmqpMessage | null) => void): Promise<{ consumerTag: string }>
  ack(message: AmqpMessage, allUpTo?: boolean): void
  deleteQueue(queue: string): Promise<unknown>
  deleteExchange(exchange: string): Promise<unknown>
  close(): Promise<void>
}
interface AmqpConnection {
  createChannel(): Promise<AmqpChannel>
  createConfirmChannel(): Promise<AmqpChannel>
  close(): Promise<void>
}
interface Amqplib {
  connect(url: string): Promise<AmqpConnection>
}

const READY_TIMEOUT_MS = 90_000
/** A variable, not a literal, so TypeScript does not try to resolve the optional module. */
const AMQPLIB = 'amqplib'

function onPath(command: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter).concat(['/usr/sbin', '/usr/lib/rabbitmq/bin'])) {
    const file = path.join(dir, command)
    try {
      accessSync(file, constants.X_OK)
      return file
    } catch {
      // not here
    }
  }
  return undefined
}

class RabbitConsumer implements BenchConsumer {
  private readonly channel: AmqpChannel
  private readonly options: ConsumerOptions
  private readonly buffer: AmqpMessage[] = []
  private readonly taken = new Map<Delivery, AmqpMessage>()
  private wake: (() => void) | undefined

  constructor(channel: AmqpChannel, options: ConsumerOptions) {
    this.channel = channel
    this.options = options
  }

  onMessage(message: AmqpMessage | null): void {
    if (!message) return
    this.buffer.push(message)
    this.wake?.()
  }

  async next(signal?: AbortSignal): Promise<Delivery[]> {
    if (this.buffer.length === 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, this.options.waitMs)
        function done() {
          clearTimeout(timer)
          signal?.removeEventListener('abort', done)
          resolve()
        }
        this.wake = done
        signal?.addEventListener('abort', done, { once: true })
      })
      this.wake = undefined
    }
    return this.buffer.splice(0, this.options.batch).map((message) => {
      const delivery = deliveryOf(JSON.parse(message.content.toString('utf8')), {})
      this.taken.set(delivery, message)
      return delivery
    })
  }

  ack(deliveries: readonly Delivery[]): Promise<number> {
    const last = deliveries[deliveries.length - 1]
    const message = last ? this.taken.get(last) : undefined
    // Deliveries leave the buffer in channel order, so acking the last with allUpTo acks the whole batch.
    if (message) this.channel.ack(message, true)
    for (const delivery of deliveries) this.taken.delete(delivery)
    return Promise.resolve(message || deliveries.length === 0 ? 0 : deliveries.length)
  }

  close(): Promise<void> {
    return this.channel.close().catch(() => undefined)
  }
}

class RabbitQueue implements BenchQueue {
  private readonly connection: AmqpConnection
  private readonly publisher: AmqpChannel
  private readonly exchange: string
  private readonly routingKey: string
  private readonly queues: Map<string | undefined, string>

  constructor(
    connection: AmqpConnection,
    publisher: AmqpChannel,
    target: { exchange: string; routingKey: string },
    queues: Map<string | undefined, string>,
  ) {
    this.connection = connection
    this.publisher = publisher
    this.exchange = target.exchange
    this.routingKey = target.routingKey
    this.queues = queues
  }

  push(messages: readonly OutgoingMessage[]): Promise<boolean[]> {
    return Promise.all(
      messages.map(
        (message) =>
          new Promise<boolean>((resolve) => {
            const content = Buffer.from(JSON.stringify(message.payload))
            this.publisher.publish(this.exchange, this.routingKey, content, { persistent: true }, (error) =>
              resolve(!error),
            )
          }),
      ),
    )
  }

  consumer(options: ConsumerOptions): BenchConsumer {
    const queue = this.queues.get(options.group)
    if (!queue) throw new Error(`rabbitmq: no queue for group ${options.group ?? '(queue mode)'}`)
    let consumer: RabbitConsumer | undefined
    const ready = (async () => {
      const channel = await this.connection.createChannel()
      await channel.prefetch(options.batch)
      consumer = new RabbitConsumer(channel, options)
      const target = consumer
      await channel.consume(queue, (message) => target.onMessage(message))
      return target
    })()
    return {
      next: async (signal) => (await ready).next(signal),
      ack: async (deliveries) => (await ready).ack(deliveries),
      close: async () => (consumer ? consumer.close() : (await ready.catch(() => undefined))?.close()),
    }
  }

  async readBack(onMessage: (producer: number, seq: number) => void, done: () => boolean, deadline: number) {
    const reader = this.consumer({
      group: undefined,
      index: 0,
      count: 1,
      batch: 1000,
      partitionsPerPop: 1,
      waitMs: 500,
    })
    while (!done() && performance.now() < deadline) {
      const deliveries = await reader.next()
      for (const delivery of deliveries) onMessage(delivery.producer, delivery.seq)
      await reader.ack(deliveries)
    }
    await reader.close()
  }

  async close(): Promise<void> {
    for (const queue of this.queues.values()) await this.publisher.deleteQueue(queue).catch(() => undefined)
    if (this.exchange) await this.publisher.deleteExchange(this.exchange).catch(() => undefined)
  }
}

/** RabbitMQ through amqplib. */
export class RabbitAdapter implements Adapter {
  readonly name = 'rabbitmq' as const
  readonly role = 'peer' as const
  readonly label = 'RabbitMQ (classic durable queue, persistent, confirms)'
  private readonly connection: AmqpConnection
  private readonly publisher: AmqpChannel
  private readonly server: PrivateServer | undefined

  private constructor(connection: AmqpConnection, publisher: AmqpChannel, server?: PrivateServer) {
    this.connection = connection
    this.publisher = publisher
    this.server = server
  }

  /** Starts (or connects to) RabbitMQ; resolves with the reason instead when it cannot run here. */
  static async start(log: (line: string) => void): Promise<RabbitAdapter | { skipped: string }> {
    const binary = onPath('rabbitmq-server')
    if (!process.env.RABBITMQ_URL && !binary) return { skipped: 'no rabbitmq-server on PATH and no RABBITMQ_URL' }
    let amqp: Amqplib
    try {
      const loaded = (await import(AMQPLIB)) as Amqplib & { default?: Amqplib }
      amqp = loaded.default ?? loaded
    } catch (error) {
      return { skipped: `amqplib could not be loaded (npm ci installs it): ${String(error)}` }
    }
    let server: PrivateServer | undefined
    let url = process.env.RABBITMQ_URL
    if (!url && binary) {
      const port = await freePort()
      server = await startPrivateServer(binary, port)
      url = `amqp://guest:guest@127.0.0.1:${port}`
      log(`started rabbitmq-server on 127.0.0.1:${port}`)
    }
    if (!url) return { skipped: 'no RabbitMQ server' }
    const deadline = Date.now() + READY_TIMEOUT_MS
    for (;;) {
      try {
        const connection = await amqp.connect(url)
        return new RabbitAdapter(connection, await connection.createConfirmChannel(), server)
      } catch (error) {
        if (Date.now() > deadline) {
          if (server) await stopPrivateServer(server)
          return { skipped: `RabbitMQ did not accept connections: ${String(error)}` }
        }
        await sleep(500)
      }
    }
  }

  supports(scenario: ScenarioId): boolean {
    // cli-push measures queenctl, which only talks to ours.
    return scenario !== 'partitions' && scenario !== 'cli-push'
  }

  brokerPid(): number | undefined {
    return this.server?.child.pid
  }

  async openQueue(spec: QueueSpec): Promise<BenchQueue> {
    const queues = new Map<string | undefined, string>()
    if (spec.groups.length === 0) {
      await this.publisher.assertQueue(spec.name, { durable: true })
      queues.set(undefined, spec.name)
      return new RabbitQueue(this.connection, this.publisher, { exchange: '', routingKey: spec.name }, queues)
    }
    const exchange = `${spec.name}.fanout`
    await this.publisher.assertExchange(exchange, 'fanout', { durable: true })
    for (const group of spec.groups) {
      const queue = `${spec.name}.${group}`
      await this.publisher.assertQueue(queue, { durable: true })
      await this.publisher.bindQueue(queue, exchange, '')
      queues.set(group, queue)
    }
    return new RabbitQueue(this.connection, this.publisher, { exchange, routingKey: '' }, queues)
  }

  async stop(): Promise<void> {
    await this.connection.close().catch(() => undefined)
    if (this.server) await stopPrivateServer(this.server)
  }
}

/** A node this benchmark started, and what stopping it must undo. */
interface PrivateServer {
  child: ChildProcess
  dir: string
  /** Erlang's port mapper daemon was already running; otherwise the node started it and it is stopped too. */
  epmdWasRunning: boolean
}

const PID_FILE = 'rabbitmq.pid'
/** The command name of the Erlang VM that is the RabbitMQ node. */
const ERLANG_VM = 'beam.smp'
const STOP_TIMEOUT_MS = 30_000

/** A throwaway node: its own name, ports, data and log directories under /tmp, loopback only, no plugins. */
async function startPrivateServer(binary: string, port: number): Promise<PrivateServer> {
  const epmdWasRunning = pidsNamed('epmd').length > 0
  const dir = await mkdtemp('/tmp/queenctl-bench-rabbitmq-')
  await writeFile(path.join(dir, 'enabled_plugins'), '[].\n')
  // As root, Debian's wrapper switches to the rabbitmq user, which must own the directory.
  const user = process.getuid?.() === 0 ? await readPasswdUser('rabbitmq') : undefined
  if (user) {
    await chown(dir, user.uid, user.gid)
    await chown(path.join(dir, 'enabled_plugins'), user.uid, user.gid)
  }
  const child = spawn(binary, [], {
    detached: true,
    stdio: 'ignore',
    env: {
      ...process.env,
      HOME: dir,
      RABBITMQ_NODENAME: `queenctl-bench-${process.pid}@localhost`,
      RABBITMQ_NODE_IP_ADDRESS: '127.0.0.1',
      RABBITMQ_NODE_PORT: String(port),
      RABBITMQ_DIST_PORT: String(await freePort()),
      RABBITMQ_MNESIA_BASE: path.join(dir, 'mnesia'),
      RABBITMQ_LOG_BASE: path.join(dir, 'log'),
      RABBITMQ_ENABLED_PLUGINS_FILE: path.join(dir, 'enabled_plugins'),
      RABBITMQ_PID_FILE: path.join(dir, PID_FILE),
    },
  })
  return { child, dir, epmdWasRunning }
}

async function stopPrivateServer(server: PrivateServer): Promise<void> {
  // The node first. As root, Debian's wrapper starts it through `su`, which opens a new session, so the signal
  // to the process group we spawned reaches the wrapper but not the node (seen: the node outlived the
  // benchmark). It is found below our child while the wrapper lives, and by its pid file otherwise; either pid
  // is signalled only while it names an Erlang VM. SIGTERM is RabbitMQ's clean shutdown.
  const pid = server.child.pid
  const nodes = new Set(pid === undefined ? [] : descendantsNamed(pid, ERLANG_VM))
  const fromFile = await readPid(path.join(server.dir, PID_FILE))
  if (fromFile !== undefined && commandName(fromFile) === ERLANG_VM) nodes.add(fromFile)
  await Promise.all([...nodes].map((node) => terminate(node)))
  const running = () => server.child.exitCode === null && server.child.signalCode === null
  if (pid !== undefined && running()) {
    const exited = new Promise<void>((resolve) => server.child.once('exit', () => resolve()))
    // The process group we created (detached): the wrapper scripts, and the node when it was not root's `su`.
    signal(-pid, 'SIGTERM')
    await Promise.race([exited, sleep(STOP_TIMEOUT_MS)])
    if (running()) signal(-pid, 'SIGKILL')
  }
  const epmd = onPath('epmd')
  if (!server.epmdWasRunning && epmd) {
    await new Promise<void>((resolve) => execFile(epmd, ['-kill'], () => resolve()))
  }
  await rm(server.dir, { recursive: true, force: true })
}

async function readPid(file: string): Promise<number | undefined> {
  try {
    const pid = Number((await readFile(file, 'utf8')).trim())
    return Number.isInteger(pid) && pid > 0 ? pid : undefined
  } catch {
    return undefined
  }
}

/** Sends `name` to `pid` (a process group when negative); false when there is no such process any more. */
function signal(pid: number, name: NodeJS.Signals): boolean {
  try {
    process.kill(pid, name)
    return true
  } catch {
    return false
  }
}

/** SIGTERM, then SIGKILL if the same process is still there after STOP_TIMEOUT_MS. */
async function terminate(pid: number): Promise<void> {
  if (!signal(pid, 'SIGTERM')) return
  const deadline = Date.now() + STOP_TIMEOUT_MS
  const alive = () => commandName(pid) === ERLANG_VM
  while (alive() && Date.now() < deadline) await sleep(100)
  if (alive()) signal(pid, 'SIGKILL')
}
