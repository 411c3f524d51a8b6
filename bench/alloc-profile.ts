/**
 * What the broker allocates per request and where its garbage-collection time goes (issue 39, part 3):
 *
 *   npx tsx bench/alloc-profile.ts [--seconds 10]
 *
 * Starts the benchmark's PostgreSQL and our broker (`bin/run.js serve`, its V8 flags) with
 * bench/alloc-sampler.mjs preloaded, then runs push of 1 (16 clients), push of 100 (8 clients) and a drain
 * (8 consumers, pop 100 over up to 16 partitions + ack batch). Each scenario warms up for 3 s, then runs
 * `--seconds` unsampled (the broker's CPU and its GC pauses from /metrics/prometheus), then `--seconds`
 * under the sampling heap profiler (bytes allocated, by origin and by function). Prints tables for
 * bench/README.md, "Where the broker's memory goes (issue 39)".
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import path from 'node:path'
import { ensureBuilt, REPO_ROOT, startBrokerProcess } from './broker-process.js'
import { positiveIntOption } from './cli-options.js'
import { closedLoop, HttpClient, type HttpAnswer } from './load.js'
import { processCpuSeconds, sleep } from './measure.js'
import { startBenchPostgres } from './postgres.js'

const SECONDS = positiveIntOption('seconds', 10)
const WARM_UP_SECONDS = 3
const PARTITIONS = 16

const log = (line: string) => process.stderr.write(`alloc-profile: ${line}\n`)

type ScenarioName = 'push of 1' | 'push of 100' | 'drain'
const CLIENTS: Record<ScenarioName, number> = { 'push of 1': 16, 'push of 100': 8, drain: 8 }
interface Done {
  requests: number
  messages: number
}

/** A node of V8's sampling heap profile (HeapProfiler.SamplingHeapProfileNode). */
interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number }
  selfSize: number
  children: ProfileNode[]
}

/** The answer's body; anything but a 2xx is an error naming the request. */
function expectOk(answer: HttpAnswer, what: string): unknown {
  if (answer.status < 200 || answer.status >= 300) {
    throw new Error(`${what}: HTTP ${answer.status} ${JSON.stringify(answer.body)}`)
  }
  return answer.body
}

async function push(http: HttpClient, queue: string, count: number, seq: number): Promise<void> {
  const items = Array.from({ length: count }, (_, n) => ({
    queue,
    partition: `p${(seq + n) % PARTITIONS}`,
    payload: { n, text: 'x'.repeat(100) },
  }))
  expectOk(await http.request('POST', '/api/v1/push', { items }), 'push')
}

interface Popped {
  transactionId: string
  partitionId: string
  leaseId: string
}

/** One pop of up to 100 and the ack of what it gave; the number of messages. */
async function popAndAck(http: HttpClient, queue: string): Promise<number> {
  const path = `/api/v1/pop/queue/${queue}?batch=100&partitions=${PARTITIONS}&wait=false`
  const answer = expectOk(await http.request('GET', path), 'pop') as { messages?: Popped[] } | undefined
  const messages = answer?.messages ?? []
  if (messages.length === 0) return 0
  const acknowledgments = messages.map(({ transactionId, partitionId, leaseId }) => ({
    transactionId,
    partitionId,
    leaseId,
    status: 'completed',
  }))
  expectOk(await http.request('POST', '/api/v1/ack/batch', { acknowledgments }), 'ack')
  return messages.length
}

/** Runs a scenario's closed-loop clients for `seconds`; counts requests and messages. */
async function run(http: HttpClient, scenario: ScenarioName, seconds: number): Promise<Done> {
  const done: Done = { requests: 0, messages: 0 }
  const end = Date.now() + seconds * 1000
  let seq = 0
  await closedLoop(
    CLIENTS[scenario],
    () => Date.now() < end,
    async () => {
      if (scenario === 'drain') {
        const got = await popAndAck(http, 'alloc-100')
        done.requests += got > 0 ? 2 : 1
        done.messages += got
      } else {
        const count = scenario === 'push of 1' ? 1 : 100
        await push(http, count === 1 ? 'alloc-1' : 'alloc-100', count, seq++)
        done.requests += 1
        done.messages += count
      }
    },
  )
  return done
}

/** Seconds of GC pauses by kind (minor, major, incremental, weakcb), from the broker's Prometheus text. */
async function gcSeconds(url: string): Promise<Map<string, number>> {
  const text = await (await fetch(`${url}/metrics/prometheus`)).text()
  const sums = new Map<string, number>()
  for (const [, kind, seconds] of text.matchAll(/^queen_nodejs_gc_duration_seconds_sum\{kind="(\w+)"\} (\S+)$/gm)) {
    if (kind !== undefined) sums.set(kind, Number(seconds))
  }
  return sums
}

/** Where a profile node's code lives: ours, a package, a Node built-in, or V8 itself. */
function originOf(url: string): string {
  if (url === '') return 'V8 and native'
  if (url.startsWith('node:')) return 'Node built-ins'
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1]
  if (pkg === undefined) return 'ours'
  return pkg.startsWith('pg') ? 'pg, pg-protocol, pg-pool' : pkg
}

function shortLocation(url: string, line: number): string {
  const inDist = url.split('/dist/')[1]
  if (inDist !== undefined) return `${inDist}:${line}`
  const inPackages = /node_modules\/(.*)$/.exec(url)?.[1]
  return `${inPackages ?? url}:${line}`
}

interface Allocation {
  total: number
  byOrigin: Map<string, number>
  byFunction: Map<string, number>
}

function allocations(head: ProfileNode): Allocation {
  const result: Allocation = { total: 0, byOrigin: new Map(), byFunction: new Map() }
  const add = (map: Map<string, number>, key: string, bytes: number) => map.set(key, (map.get(key) ?? 0) + bytes)
  const walk = (node: ProfileNode) => {
    const { functionName, url, lineNumber } = node.callFrame
    result.total += node.selfSize
    add(result.byOrigin, originOf(url), node.selfSize)
    add(result.byFunction, `${functionName || '(anonymous)'} ${shortLocation(url, lineNumber + 1)}`, node.selfSize)
    node.children.forEach(walk)
  }
  walk(head)
  return result
}

async function readProfile(file: string): Promise<ProfileNode> {
  for (let waited = 0; waited < 60_000; waited += 250) {
    try {
      return (JSON.parse(await readFile(file, 'utf8')) as { head: ProfileNode }).head
    } catch {
      await sleep(250)
    }
  }
  throw new Error(`no allocation profile at ${file} after 60 s`)
}

const kb = (bytes: number) => (bytes / 1024).toFixed(1)
const share = (part: number, whole: number) => `${((100 * part) / whole).toFixed(0)} %`

async function main(): Promise<void> {
  await ensureBuilt(log)
  const pg = await startBenchPostgres(log)
  const outDir = await mkdtemp('/tmp/queenctl-alloc-')
  let broker: Awaited<ReturnType<typeof startBrokerProcess>> | undefined
  let http: HttpClient | undefined
  try {
    broker = await startBrokerProcess(pg, {
      extraEnv: {
        NODE_OPTIONS: `--import ${path.join(REPO_ROOT, 'bench/alloc-sampler.mjs')}`,
        BENCH_ALLOC_OUT: path.join(outDir, 'profile'),
      },
    })
    http = new HttpClient(broker.url, Math.max(...Object.values(CLIENTS)))
    const gcRows: string[] = []
    const allocRows: string[] = []
    const topRows: string[] = []
    let profiles = 0
    for (const scenario of ['push of 1', 'push of 100', 'drain'] as const) {
      log(`${scenario}: warm-up, then ${SECONDS} s unsampled and ${SECONDS} s sampled`)
      // The drain's queue is the push of 100's; top it up so the sampled window cannot run dry.
      if (scenario === 'drain') await run(http, 'push of 100', SECONDS * 2)
      await run(http, scenario, WARM_UP_SECONDS)

      const gcBefore = await gcSeconds(broker.url)
      const cpuBefore = processCpuSeconds(broker.pid) ?? 0
      const plain = await run(http, scenario, SECONDS)
      const cpu = (processCpuSeconds(broker.pid) ?? 0) - cpuBefore
      const gcAfter = await gcSeconds(broker.url)
      const gc = (kind: string) => (gcAfter.get(kind) ?? 0) - (gcBefore.get(kind) ?? 0)
      const gcTotal = [...gcAfter.keys()].reduce((sum, kind) => sum + gc(kind), 0)
      gcRows.push(
        `| ${scenario} | ${Math.round(plain.messages / SECONDS).toLocaleString('en')} | ${cpu.toFixed(2)} | ` +
          `${gc('minor').toFixed(2)} | ${(gc('major') + gc('incremental')).toFixed(2)} | ${share(gcTotal, cpu)} |`,
      )

      process.kill(broker.pid, 'SIGUSR2')
      await sleep(300)
      const sampled = await run(http, scenario, SECONDS)
      process.kill(broker.pid, 'SIGUSR2')
      const profile = allocations(await readProfile(path.join(outDir, `profile.${++profiles}`)))
      const origins = [...profile.byOrigin].sort((a, b) => b[1] - a[1]).slice(0, 5)
      allocRows.push(
        `| ${scenario} | ${kb(profile.total / sampled.requests)} | ${Math.round(profile.total / sampled.messages)} | ` +
          `${origins.map(([origin, bytes]) => `${origin} ${share(bytes, profile.total)}`).join(', ')} |`,
      )
      const top = [...profile.byFunction].sort((a, b) => b[1] - a[1]).slice(0, 6)
      topRows.push(
        `| ${scenario} | ${top.map(([fn, bytes]) => `\`${fn}\` ${share(bytes, profile.total)}`).join(', ')} |`,
      )
    }
    process.stdout.write(
      [
        `${SECONDS} s per window; CPU is the broker process's (all its threads); GC is the pause time on its main thread.`,
        '',
        '| scenario | messages/s | broker CPU, s | scavenges, s | mark-compact, s | GC share of CPU |',
        '| --- | --- | --- | --- | --- | --- |',
        ...gcRows,
        '',
        '| scenario | KB allocated per request | bytes per message | by origin |',
        '| --- | --- | --- | --- |',
        ...allocRows,
        '',
        '| scenario | largest allocating functions (share of the bytes) |',
        '| --- | --- |',
        ...topRows,
        '',
      ].join('\n'),
    )
  } finally {
    await http?.close()
    await broker?.stop()
    await pg.stop()
    await rm(outDir, { recursive: true, force: true })
  }
}

await main()
