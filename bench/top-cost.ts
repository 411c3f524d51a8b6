/**
 * What `queenctl top` costs at its default 2 s interval against a broker with 1,000 queues:
 *
 *   npx tsx bench/top-cost.ts [--queues 1000] [--seconds 60] [--node-flags "--max-old-space-size=64"]
 *
 * Starts the benchmark's embedded PostgreSQL and our broker (`node bin/run.js serve`, jobs on), creates the
 * queues, keeps a light background load (20 of the queues pushed to every 200 ms, the first one popped and
 * acked), then runs the built `node bin/run.js top` in a detached 80x24 tmux session and reads its CPU
 * time (/proc/<pid>/stat) and peak RSS (VmHWM of /proc/<pid>/status) over `--seconds` on the Overview,
 * then as long again on the Queues pane (which polls the 1,000-row queue list). Prints the figures and a
 * text capture of both panes, for docs/cli.md, "The top dashboard". Needs tmux.
 */
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { promisify } from 'node:util'
import { ensureBuilt, REPO_ROOT, startBrokerProcess } from './broker-process.js'
import { processCpuSeconds, rssBytes, sleep } from './measure.js'
import { positiveIntOption } from './cli-options.js'
import { startBenchPostgres } from './postgres.js'

const run = promisify(execFile)

/** V8 flags for top's node (default none: `node bin/run.js top`, as the tests run it). */
const NODE_FLAGS = (() => {
  const index = process.argv.indexOf('--node-flags')
  return index === -1 ? '' : (process.argv[index + 1] ?? '')
})()
const QUEUES = positiveIntOption('queues', 1000)
const SECONDS = positiveIntOption('seconds', 60)
/** Queues with traffic during the run, and the push cadence. */
const BUSY_QUEUES = 20
const PUSH_EVERY_MS = 200

const log = (line: string) => process.stderr.write(`top-cost: ${line}\n`)

/** Peak resident set size of a process (VmHWM), bytes. */
function peakRssBytes(pid: number): number | undefined {
  const match = /^VmHWM:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return match?.[1] ? Number(match[1]) * 1024 : undefined
}

async function post(url: string, path: string, body: unknown): Promise<unknown> {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  if (!response.ok) throw new Error(`POST ${path}: HTTP ${response.status} ${await response.text()}`)
  return response.json()
}

/** Creates `count` queues, ten requests at a time. */
async function createQueues(url: string, count: number): Promise<string[]> {
  const names = Array.from({ length: count }, (_, index) => `bench-q${String(index).padStart(4, '0')}`)
  for (let start = 0; start < names.length; start += 10) {
    await Promise.all(names.slice(start, start + 10).map((queue) => post(url, '/api/v1/configure', { queue })))
  }
  return names
}

/** The background load: pushes to the busy queues; pops and acks the first one. Stops on `signal`. */
async function load(url: string, queues: string[], signal: AbortSignal): Promise<void> {
  let round = 0
  while (!signal.aborted) {
    const queue = queues[round % BUSY_QUEUES]!
    const items = Array.from({ length: 10 }, (_, n) => ({ queue, partition: `p${n % 2}`, payload: { round, n } }))
    await post(url, '/api/v1/push', { items }).catch(() => undefined)
    if (round % 5 === 0) {
      const popped = await fetch(`${url}/api/v1/pop/queue/${queues[0]}?batch=20&wait=false`)
        .then((response) => (response.status === 200 ? (response.json() as Promise<{ messages: object[] }>) : null))
        .catch(() => null)
      const messages = (popped?.messages ?? []) as { transactionId: string; partitionId: string; leaseId?: string }[]
      if (messages.length > 0) {
        await post(url, '/api/v1/ack/batch', {
          acknowledgments: messages.map(({ transactionId, partitionId, leaseId }) => ({
            transactionId,
            partitionId,
            leaseId,
            status: 'completed',
          })),
        }).catch(() => undefined)
      }
    }
    round += 1
    await sleep(PUSH_EVERY_MS, signal).catch(() => undefined)
  }
}

async function main(): Promise<void> {
  await ensureBuilt(log)
  const pg = await startBenchPostgres(log)
  const socket = `queenctl-top-cost-${process.pid}`
  const tmux = (...args: string[]) => run('tmux', ['-L', socket, '-f', '/dev/null', ...args], { cwd: REPO_ROOT })
  const stopLoad = new AbortController()
  let broker: Awaited<ReturnType<typeof startBrokerProcess>> | undefined
  let loading: Promise<void> | undefined
  try {
    broker = await startBrokerProcess(pg)
    log(`broker ${broker.url}; creating ${QUEUES} queues`)
    const queues = await createQueues(broker.url, QUEUES)
    loading = load(broker.url, queues, stopLoad.signal)

    // `exec` makes the pane's process top itself; no CI variable (Ink would render only a last frame).
    const command = `exec env -i PATH=${process.env.PATH ?? '/usr/bin:/bin'} HOME=/tmp TERM=xterm-256color node ${NODE_FLAGS} bin/run.js top --server ${broker.url}`
    await tmux('new-session', '-d', '-s', 'top', '-x', '80', '-y', '24', command)
    // Keep the pane after top exits, so a crash can still be read.
    await tmux('set-option', '-t', 'top', 'remain-on-exit', 'on')
    const pid = Number((await tmux('display-message', '-p', '-t', 'top', '#{pane_pid}')).stdout.trim())
    log(`top pid ${pid}; ${SECONDS} s on the Overview, then ${SECONDS} s on the Queues pane`)
    const capture = async () => (await tmux('capture-pane', '-p', '-t', 'top')).stdout.trimEnd()
    const alive = async () => {
      if (processCpuSeconds(pid) === undefined) throw new Error(`top exited during the run:\n${await capture()}`)
    }

    // Start-up (module loading, the first answers) is measured apart from the steady state.
    await sleep(5000)
    const startCpu = processCpuSeconds(pid) ?? 0
    const startRss = rssBytes(pid) ?? 0
    await sleep(SECONDS * 1000)
    await alive()
    const overviewCpu = (processCpuSeconds(pid) ?? 0) - startCpu
    const overviewRss = rssBytes(pid) ?? 0
    const overview = await capture()

    await tmux('send-keys', '-t', 'top', '2')
    const queuesStartCpu = processCpuSeconds(pid) ?? 0
    await sleep(SECONDS * 1000)
    await alive()
    const queuesCpu = (processCpuSeconds(pid) ?? 0) - queuesStartCpu
    const queuesRss = rssBytes(pid) ?? 0
    const peak = peakRssBytes(pid) ?? 0
    const queuesPane = await capture()
    await tmux('send-keys', '-t', 'top', 'q')

    const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`
    const percent = (cpuSeconds: number) => `${((100 * cpuSeconds) / SECONDS).toFixed(2)} %`
    process.stdout.write(
      [
        `queenctl top, default 2 s interval, ${QUEUES} queues (${BUSY_QUEUES} with traffic), ${SECONDS} s per pane, 80x24 tmux, node ${NODE_FLAGS || '(no flags)'}`,
        '',
        '| pane | CPU time | CPU (of one core) | RSS at the end |',
        '|---|---|---|---|',
        `| Overview | ${overviewCpu.toFixed(2)} s | ${percent(overviewCpu)} | ${mb(overviewRss)} |`,
        `| Queues (${QUEUES} rows) | ${queuesCpu.toFixed(2)} s | ${percent(queuesCpu)} | ${mb(queuesRss)} |`,
        '',
        `RSS after start-up ${mb(startRss)}; peak RSS (VmHWM) over the whole run ${mb(peak)}.`,
        '',
        'Overview:',
        '',
        overview,
        '',
        'Queues:',
        '',
        queuesPane,
        '',
      ].join('\n'),
    )
  } finally {
    stopLoad.abort()
    await loading
    await tmux('kill-server').catch(() => undefined)
    await broker?.stop()
    await pg.stop()
  }
}

await main()
