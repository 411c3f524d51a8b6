/**
 * Runs one scenario on one adapter and measures it: throughput in the window, request and end-to-end
 * latency, CPU of the broker, PostgreSQL and the load generator per 100k messages, broker RSS, and the
 * ledger's lost/duplicate counts (every run, docs/performance.md, "What every run measures").
 */
import { randomBytes } from 'node:crypto'
import { makeMessage, type Adapter, type AdapterName, type AdapterRole, type BenchQueue } from './adapter.js'
import { CLI_PRODUCER, runCliPush, writeCliPushInput, type CliPushRun } from './cli-push.js'
import { Ledger } from './ledger.js'
import { openLoop } from './load.js'
import { cpuBetween, cpuSnapshot, Latencies, sleep, treeRssBytes, type CpuSnapshot } from './measure.js'
import { memoryMap, type MemoryMap } from './memory-map.js'
import { partitionOf, type ScenarioSpec } from './scenarios.js'

/** Timing of a run, from the command line. */
export interface RunSettings {
  warmupMs: number
  windowMs: number
  /** How long consumers may take to receive everything once producers are done. */
  drainTimeoutMs: number
  postmasterPid?: number
  /** `--memory-map`: read where the broker's memory is at its peak (memory-map.ts). */
  memoryMap?: boolean
}

/** One measurement: one scenario, one adapter, one run. */
export interface ScenarioResult {
  scenario: ScenarioSpec['id']
  adapter: AdapterName
  role: AdapterRole
  label: string
  run: number
  /** The scenario's throughput: messages/s (deliveries/s for fan-out). */
  rate?: number
  /** Unit of {@link rate}. */
  rateUnit: 'msg/s' | 'deliveries/s'
  /** Seconds the rate and CPU figures cover. */
  seconds: number
  /** Messages the rate and CPU figures cover. */
  messages: number
  /** Push round trip (pop round trip for drain), ms. */
  requestP50Ms?: number
  requestP99Ms?: number
  e2eP50Ms?: number
  e2eP99Ms?: number
  e2eMaxMs?: number
  brokerRssMb?: number
  brokerRssMaxMb?: number
  /** The broker's memory by kind at its peak RSS, with `--memory-map`. */
  brokerMemoryAtPeak?: MemoryMap
  /** Peak RSS of the `queenctl push` process (cli-push), MB. */
  cliRssMb?: number
  /** CPU seconds per 100 000 messages. */
  brokerCpuPer100k?: number
  pgCpuPer100k?: number
  benchCpuPer100k?: number
  /** Average cores used by other processes on the machine during the measurement (noise). */
  otherCores?: number
  /** Average cores the hypervisor took away during the measurement (a VM's noise; 0 on bare metal). */
  stealCores?: number
  /** Average cores the system under test and the load generator used together (see CpuUsage.busyCores). */
  busyCores?: number
  accepted: number
  refused: number
  lost: number
  duplicates: number
  unexpected: number
  /** Pushes that failed or timed out but whose messages were stored anyway (not a failure). */
  storedAfterRefusal: number
  errors: number
  errorSample: string[]
  lostSample: string[]
}

const QUEUE_MODE = 'queue'

class RunState {
  readonly ledger: Ledger
  readonly requests = new Latencies()
  readonly e2e = new Latencies()
  errors = 0
  readonly errorSample: string[] = []
  producersDone = false
  deadline = Number.POSITIVE_INFINITY
  windowStart = 0
  windowEnd = Number.POSITIVE_INFINITY
  windowAccepted = 0
  readonly stops = new Map<string, AbortController>()

  constructor(groups: string[]) {
    this.ledger = new Ledger(groups)
    for (const group of groups) this.stops.set(group, new AbortController())
  }

  error(where: string, error: unknown): void {
    this.errors++
    if (this.errorSample.length < 5) this.errorSample.push(`${where}: ${String(error)}`.slice(0, 300))
  }

  /** Stops the consumers of every group that has everything, once producers are done. */
  settle(): void {
    if (!this.producersDone) return
    for (const [group, stop] of this.stops) {
      if (this.ledger.receivedBy(group) >= this.ledger.accepted || performance.now() > this.deadline) stop.abort()
    }
  }
}

/** Sends one request of `producer` and records it. */
async function pushRequest(
  queue: BenchQueue,
  spec: ScenarioSpec,
  state: RunState,
  tag: string,
  producer: number,
  request: number,
): Promise<void> {
  const messages = Array.from({ length: spec.pushBatch }, (_, index) =>
    makeMessage(tag, producer, request * spec.pushBatch + index, partitionOf(spec, producer, request, index)),
  )
  const started = performance.now()
  let accepted: boolean[]
  try {
    accepted = await queue.push(messages)
  } catch (error) {
    state.error('push', error)
    accepted = []
  }
  const finished = performance.now()
  let count = 0
  messages.forEach((message, index) => {
    const ok = accepted[index] === true
    if (ok) count++
    state.ledger.send(message.producer, message.seq, ok)
  })
  if (accepted.length > 0 && count < messages.length) {
    state.error('push', `${messages.length - count} of ${messages.length} items not accepted`)
  }
  if (started >= state.windowStart && finished <= state.windowEnd) state.requests.add(finished - started)
  if (finished >= state.windowStart && finished <= state.windowEnd) state.windowAccepted += count
}

/** Closed-loop producers: until the window closes, or until `messages` are sent. */
async function produce(queue: BenchQueue, spec: ScenarioSpec, state: RunState, tag: string, messages?: number) {
  const totalRequests = messages === undefined ? Number.POSITIVE_INFINITY : Math.ceil(messages / spec.pushBatch)
  await Promise.all(
    Array.from({ length: spec.producers }, async (_, producer) => {
      for (let request = 0; request * spec.producers + producer < totalRequests; request++) {
        if (messages === undefined && performance.now() >= state.windowEnd) break
        await pushRequest(queue, spec, state, tag, producer, request)
      }
    }),
  )
}

/** Consumers of every group, until each group has received everything or the deadline passes. */
async function consume(queue: BenchQueue, spec: ScenarioSpec, state: RunState, recordRequests: boolean) {
  const loops: Promise<void>[] = []
  for (const group of state.ledger.groups) {
    const stop = state.stops.get(group) ?? new AbortController()
    for (let index = 0; index < spec.consumersPerGroup; index++) {
      const consumer = queue.consumer({
        group: group === QUEUE_MODE ? undefined : group,
        index,
        count: spec.consumersPerGroup,
        batch: spec.popBatch,
        partitionsPerPop: spec.partitionsPerPop,
        waitMs: spec.popWaitMs,
      })
      loops.push(
        (async () => {
          while (!stop.signal.aborted) {
            const started = performance.now()
            let deliveries
            try {
              deliveries = await consumer.next(stop.signal)
            } catch (error) {
              state.error('pop', error)
              await sleep(20, stop.signal)
              continue
            }
            const received = performance.now()
            if (deliveries.length > 0) {
              if (recordRequests) state.requests.add(received - started)
              for (const delivery of deliveries) {
                state.ledger.receive(group, delivery.producer, delivery.seq)
                if (delivery.sentAt >= state.windowStart && delivery.sentAt <= state.windowEnd) {
                  state.e2e.add(received - delivery.sentAt)
                }
              }
              try {
                const failed = await consumer.ack(deliveries)
                if (failed > 0) state.error('ack', `${failed} of ${deliveries.length} acks failed`)
              } catch (error) {
                state.error('ack', error)
              }
            }
            state.settle()
          }
          await consumer.close()
        })(),
      )
    }
  }
  await Promise.all(loops)
}

/** Samples the broker's RSS every 500 ms; `stop()` returns the maximum and the last reading. */
export function rssSampler(
  pid: number | undefined,
  options: { memoryMap?: boolean } = {},
): () => { max?: number; last?: number; mapAtPeak?: MemoryMap } {
  if (pid === undefined) return () => ({})
  let max = treeRssBytes(pid) ?? 0
  // Read at each new high only: after the first seconds there are few, and a read of smaps pauses the broker.
  let mapAtPeak = options.memoryMap ? memoryMap(pid) : undefined
  const sample = () => {
    const rss = treeRssBytes(pid) ?? 0
    if (options.memoryMap && rss > max) mapAtPeak = memoryMap(pid) ?? mapAtPeak
    max = Math.max(max, rss)
  }
  const timer = setInterval(sample, 500)
  return () => {
    clearInterval(timer)
    const last = treeRssBytes(pid)
    return { max: Math.max(max, last ?? 0), last, mapAtPeak }
  }
}

/** Runs `spec` once on `adapter`. */
export async function runScenario(
  adapter: Adapter,
  spec: ScenarioSpec,
  run: number,
  settings: RunSettings,
): Promise<ScenarioResult> {
  const tag = `b_${spec.id}_${adapter.name}_r${run}_${randomBytes(3).toString('hex')}`
  const groups =
    spec.kind === 'push' || spec.kind === 'cli'
      ? ['readback']
      : spec.groups > 0
        ? groupNames(spec.groups)
        : [QUEUE_MODE]
  const state = new RunState(groups)
  const queue = await adapter.openQueue({
    name: tag,
    partitions: spec.partitions,
    groups: spec.groups > 0 ? groupNames(spec.groups) : [],
  })
  const watched = { brokerPid: adapter.brokerPid(), postmasterPid: settings.postmasterPid }
  // The map is of one process: our broker's (RabbitMQ's is a tree of processes).
  const mapped = settings.memoryMap === true && (adapter.name === 'ours' || adapter.name === 'gateway')
  const stopRss = rssSampler(watched.brokerPid, { memoryMap: mapped })
  let start: CpuSnapshot
  let end: CpuSnapshot
  let messages: number
  let seconds: number
  let cliRssMb: number | undefined
  try {
    const t0 = performance.now()
    if (spec.kind === 'push') {
      state.windowStart = t0 + settings.warmupMs
      state.windowEnd = state.windowStart + settings.windowMs
      const snapshots = snapshotWindow(state, watched)
      await produce(queue, spec, state, tag)
      ;[start, end] = await snapshots
      state.producersDone = true
      const deadline = performance.now() + settings.drainTimeoutMs
      await queue.readBack(
        (producer, seq) => state.ledger.receive('readback', producer, seq),
        () => state.ledger.complete(),
        deadline,
      )
      messages = state.windowAccepted
      seconds = settings.windowMs / 1000
    } else if (spec.kind === 'cli') {
      const url = adapter.serverUrl?.()
      if (url === undefined) throw new Error(`${spec.id} needs the broker's URL: only ours runs it`)
      // The input is written before the measurement: only the queenctl process is measured.
      const input = await writeCliPushInput(spec, tag)
      let cli: CliPushRun
      try {
        start = cpuSnapshot(watched)
        cli = await runCliPush(url, tag, input, spec)
        const after = cpuSnapshot(watched)
        // queenctl is the load generator here: its CPU joins this process's.
        end = { ...after, bench: after.bench + cli.cpuSeconds }
      } finally {
        await input.dispose()
      }
      cliRssMb = cli.maxRssMb
      recordCliPush(state, input.messages, cli)
      state.producersDone = true
      await queue.readBack(
        (producer, seq) => state.ledger.receive('readback', producer, seq),
        () => state.ledger.complete(),
        performance.now() + settings.drainTimeoutMs,
      )
      messages = state.ledger.accepted
      seconds = cli.wallMs / 1000
    } else if (spec.kind === 'drain') {
      // The prefill is not measured (window closed), and end-to-end latency of prefilled messages means nothing.
      state.windowStart = Number.POSITIVE_INFINITY
      await produce(queue, spec, state, tag, spec.messages ?? 0)
      state.producersDone = true
      start = cpuSnapshot(watched)
      state.deadline = start.atMs + settings.drainTimeoutMs
      await consume(queue, spec, state, true)
      end = cpuSnapshot(watched)
      messages = state.ledger.accepted
      seconds = (end.atMs - start.atMs) / 1000
    } else if (spec.ratePerSecond !== undefined) {
      state.windowStart = t0 + settings.warmupMs
      state.windowEnd = state.windowStart + settings.windowMs
      const consumers = consume(queue, spec, state, false)
      const snapshots = snapshotWindow(state, watched)
      const seqs = new Array<number>(spec.producers).fill(0)
      await openLoop(spec.ratePerSecond / spec.pushBatch, settings.warmupMs + settings.windowMs, (n) => {
        const producer = n % spec.producers
        const request = seqs[producer] ?? 0
        seqs[producer] = request + 1
        return pushRequest(queue, spec, state, tag, producer, request)
      })
      ;[start, end] = await snapshots
      finishProducers(state, settings)
      await consumers
      messages = state.windowAccepted
      seconds = settings.windowMs / 1000
    } else {
      state.windowStart = Number.NEGATIVE_INFINITY
      start = cpuSnapshot(watched)
      const consumers = consume(queue, spec, state, false)
      await produce(queue, spec, state, tag, spec.messages ?? 0)
      finishProducers(state, settings)
      await consumers
      end = cpuSnapshot(watched)
      messages = state.ledger.accepted
      seconds = (end.atMs - start.atMs) / 1000
    }
  } finally {
    await queue.close().catch((error: unknown) => state.error('close', error))
  }
  const rss = stopRss()
  const check = state.ledger.check()
  const cpu = cpuBetween(start, end)
  const per100k = (cpuSeconds?: number) =>
    cpuSeconds === undefined || messages <= 0 ? undefined : (cpuSeconds * 100_000) / messages
  const [requestP50Ms, requestP99Ms] = state.requests.percentiles(50, 99)
  const [e2eP50Ms, e2eP99Ms, e2eMaxMs] = state.e2e.percentiles(50, 99, 100)
  const deliveries = spec.kind === 'flow' && spec.groups > 0
  return {
    scenario: spec.id,
    adapter: adapter.name,
    role: adapter.role,
    label: adapter.label,
    run,
    rate: seconds > 0 ? (deliveries ? messages * spec.groups : messages) / seconds : undefined,
    rateUnit: deliveries ? 'deliveries/s' : 'msg/s',
    seconds,
    messages,
    requestP50Ms,
    requestP99Ms,
    e2eP50Ms,
    e2eP99Ms,
    e2eMaxMs,
    brokerRssMb: rss.last === undefined ? undefined : rss.last / 1024 / 1024,
    brokerRssMaxMb: rss.max === undefined ? undefined : rss.max / 1024 / 1024,
    brokerMemoryAtPeak: rss.mapAtPeak,
    cliRssMb,
    brokerCpuPer100k: per100k(cpu.broker),
    pgCpuPer100k: per100k(cpu.pg),
    benchCpuPer100k: per100k(cpu.bench),
    otherCores: cpu.otherCores,
    stealCores: cpu.stealCores,
    busyCores: cpu.busyCores,
    accepted: check.accepted,
    refused: check.refused,
    lost: check.lost,
    duplicates: check.duplicates,
    unexpected: check.unexpected,
    storedAfterRefusal: check.storedAfterRefusal,
    errors: state.errors,
    errorSample: state.errorSample,
    lostSample: check.lostSample,
  }
}

/**
 * The ledger entries of a cli-push run: every line accepted unless its item failed (the result lists the
 * first failures by line) or the command stopped before printing its result.
 */
function recordCliPush(state: RunState, messages: number, cli: CliPushRun): void {
  const failedLines = new Set(cli.result?.failures.map((failure) => failure.line) ?? [])
  for (let seq = 0; seq < messages; seq++) {
    state.ledger.send(CLI_PRODUCER, seq, cli.result !== undefined && !failedLines.has(seq + 1))
  }
  if (cli.exitCode !== 0) state.error('queenctl push', `exit ${cli.exitCode}: ${cli.stderr}`)
}

function groupNames(count: number): string[] {
  return Array.from({ length: count }, (_, index) => `g${index + 1}`)
}

function finishProducers(state: RunState, settings: RunSettings): void {
  state.producersDone = true
  state.deadline = performance.now() + settings.drainTimeoutMs
  state.settle()
  // Consumers parked in a long poll see the deadline only when it returns: wake them at the deadline.
  const timer = setTimeout(() => state.settle(), settings.drainTimeoutMs + 10)
  timer.unref()
}

/** CPU snapshots at the start and the end of the measurement window. */
async function snapshotWindow(
  state: RunState,
  watched: { brokerPid?: number; postmasterPid?: number },
): Promise<[CpuSnapshot, CpuSnapshot]> {
  await sleep(Math.max(0, state.windowStart - performance.now()))
  const start = cpuSnapshot(watched)
  await sleep(Math.max(0, state.windowEnd - performance.now()))
  return [start, cpuSnapshot(watched)]
}
