/**
 * What an open dashboard overview costs the broker (issue 35, item 5), beside the `top` cost (top-cost.ts):
 *
 *   npx tsx bench/dashboard-cost.ts [--queues 1000] [--seconds 60]
 *
 * Starts the benchmark's embedded PostgreSQL and our broker (`node bin/run.js serve`, jobs on), creates 10
 * queues, then measures the broker's CPU time (/proc/<pid>/stat) and PostgreSQL's (the postmaster's tree) over
 * `--seconds` idle, then over as long again with the overview's requests sent every 2 s (the same paths the
 * page asks for: bench/dashboard-poll.ts), one tick at a time as the page does; then creates queues up to
 * `--queues` and measures both again. Prints a table for bench/README.md, "The cost of an open dashboard".
 */
import { ensureBuilt, startBrokerProcess } from './broker-process.js'
import { positiveIntOption } from './cli-options.js'
import { costTable, overviewTick, TICK_MS, type CostPhase } from './dashboard-poll.js'
import { processCpuSeconds, sleep, treeCpuSeconds } from './measure.js'
import { startBenchPostgres } from './postgres.js'

const QUEUES = positiveIntOption('queues', 1000)
const SECONDS = positiveIntOption('seconds', 60)
const FEW_QUEUES = 10

const log = (line: string) => process.stderr.write(`dashboard-cost: ${line}\n`)

async function configure(url: string, queue: string): Promise<void> {
  const response = await fetch(`${url}/api/v1/configure`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ queue }),
  })
  if (!response.ok) throw new Error(`POST /api/v1/configure: HTTP ${response.status} ${await response.text()}`)
  await response.arrayBuffer()
}

/** Creates queues bench-q<from>..bench-q<to - 1>, ten requests at a time, each with one message. */
async function createQueues(url: string, from: number, to: number): Promise<void> {
  for (let start = from; start < to; start += 10) {
    const names = Array.from(
      { length: Math.min(10, to - start) },
      (_, n) => `bench-q${String(start + n).padStart(4, '0')}`,
    )
    await Promise.all(names.map((queue) => configure(url, queue)))
    const response = await fetch(`${url}/api/v1/push`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ items: names.map((queue) => ({ queue, payload: { hello: queue } })) }),
    })
    await response.arrayBuffer()
  }
}

/** Sends the overview's requests every tick until `signal`; counts requests and answer bytes. */
async function pollOverview(url: string, signal: AbortSignal): Promise<{ requests: number; answerBytes: number }> {
  let requests = 0
  let answerBytes = 0
  while (!signal.aborted) {
    const answers = await Promise.all(
      overviewTick(Date.now()).map(async (path) => {
        const response = await fetch(`${url}${path}`, { headers: { accept: 'application/json' } })
        if (response.status !== 200 && !(path === '/health' && response.status === 503)) {
          throw new Error(`GET ${path}: HTTP ${response.status}`)
        }
        return (await response.arrayBuffer()).byteLength
      }),
    )
    requests += answers.length
    answerBytes += answers.reduce((sum, bytes) => sum + bytes, 0)
    // As use-poll.ts: the next tick 2 s after the answers.
    await sleep(TICK_MS, signal).catch(() => undefined)
  }
  return { requests, answerBytes }
}

async function measure(
  url: string,
  brokerPid: number,
  postgresPid: number | undefined,
  queues: number,
  polling: boolean,
): Promise<CostPhase> {
  const pgCpu = () => (postgresPid === undefined ? undefined : treeCpuSeconds(postgresPid))
  const brokerStart = processCpuSeconds(brokerPid) ?? 0
  const pgStart = pgCpu()
  const stop = new AbortController()
  const poller = polling ? pollOverview(url, stop.signal) : Promise.resolve({ requests: 0, answerBytes: 0 })
  await sleep(SECONDS * 1000)
  stop.abort()
  const sent = await poller
  const brokerEnd = processCpuSeconds(brokerPid)
  if (brokerEnd === undefined) throw new Error('the broker exited during the run')
  const pgEnd = pgCpu()
  const phase: CostPhase = {
    queues,
    polling,
    seconds: SECONDS,
    brokerCpuSeconds: brokerEnd - brokerStart,
    postgresCpuSeconds: pgStart === undefined || pgEnd === undefined ? undefined : pgEnd - pgStart,
    ...sent,
  }
  log(`${queues} queues, ${polling ? 'overview open' : 'idle'}: broker ${phase.brokerCpuSeconds.toFixed(2)} s CPU`)
  return phase
}

async function main(): Promise<void> {
  await ensureBuilt(log)
  const pg = await startBenchPostgres(log)
  let broker: Awaited<ReturnType<typeof startBrokerProcess>> | undefined
  try {
    broker = await startBrokerProcess(pg)
    const phases: CostPhase[] = []
    let created = 0
    for (const queues of [FEW_QUEUES, QUEUES]) {
      log(`broker ${broker.url}; ${queues} queues`)
      await createQueues(broker.url, created, queues)
      created = queues
      // Let the stats job see the new queues before measuring.
      await sleep(15_000)
      phases.push(await measure(broker.url, broker.pid, pg.postmasterPid, queues, false))
      phases.push(await measure(broker.url, broker.pid, pg.postmasterPid, queues, true))
    }
    process.stdout.write(
      [
        `The dashboard's overview polled every 2 s (${overviewTick(0).length} requests per tick, as an admin), ${SECONDS} s per phase, against our broker with its jobs on; CPU as a share of one core.`,
        '',
        costTable(phases),
        '',
      ].join('\n'),
    )
  } finally {
    await broker?.stop()
    await pg.stop()
  }
}

await main()
