/**
 * The `cli-push` scenario: the rate of `queenctl push` itself (docs/cli.md, "Data-plane commands"), the way an operator
 * loads a file. The scenario's messages are written (before the measurement) to an NDJSON file of `--wrapped` lines
 * (each with its partition and a transaction id the ledger can check), then `node bin/run.js push --file` sends it to
 * our broker with `--batch` = the scenario's push batch. The rate is messages over the CLI's wall time, start-up
 * included; the CLI's CPU counts as load generator, and its peak RSS is reported.
 */
import { spawn } from 'node:child_process'
import { createWriteStream } from 'node:fs'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { once } from 'node:events'
import path from 'node:path'
import { makeMessage } from './adapter.js'
import { REPO_ROOT } from './broker-process.js'
import { partitionOf, type ScenarioSpec } from './scenarios.js'

/** What one `queenctl push` run did. */
export interface CliPushRun {
  /** Wall time of the process, ms (start-up included). */
  wallMs: number
  exitCode: number | null
  /** Its user + system CPU, seconds. */
  cpuSeconds: number
  /** Its peak resident set, MB. */
  maxRssMb: number
  /** The command's JSON result (undefined when it failed before printing one). */
  result?: { queued: number; duplicate: number; buffered: number; failed: number; failures: { line: number }[] }
  stderr: string
}

/** The producer number of every message in the file (the ledger tracks (producer, seq)). */
export const CLI_PRODUCER = 0

const LINES_PER_WRITE = 1000

/** Writes the scenario's messages as wrapped NDJSON lines, seq 0..messages-1, partitions `p<n>`. */
async function writeInput(file: string, spec: ScenarioSpec, tag: string, messages: number): Promise<void> {
  const out = createWriteStream(file)
  for (let start = 0; start < messages; start += LINES_PER_WRITE) {
    let chunk = ''
    for (let seq = start; seq < Math.min(messages, start + LINES_PER_WRITE); seq++) {
      const request = Math.floor(seq / spec.pushBatch)
      const message = makeMessage(
        tag,
        CLI_PRODUCER,
        seq,
        partitionOf(spec, CLI_PRODUCER, request, seq % spec.pushBatch),
      )
      chunk += `${JSON.stringify({ partition: `p${message.partition}`, transactionId: message.id, data: message.payload })}\n`
    }
    if (!out.write(chunk)) await once(out, 'drain')
  }
  out.end()
  await once(out, 'finish')
}

/** A preload that writes the process's CPU and peak RSS when it exits. */
function usagePreload(usageFile: string): string {
  return `process.on('exit', () => { const u = process.resourceUsage(); require('node:fs').writeFileSync(${JSON.stringify(usageFile)}, JSON.stringify({ cpu: (u.userCPUTime + u.systemCPUTime) / 1e6, maxRssKb: u.maxRSS })) })\n`
}

/** The input file of one run, written before the measurement starts. */
export interface CliPushInput {
  file: string
  messages: number
  /** Removes the file and its directory. */
  dispose(): Promise<void>
}

/** Writes the scenario's messages to a file in a fresh temporary directory. */
export async function writeCliPushInput(spec: ScenarioSpec, tag: string): Promise<CliPushInput> {
  const dir = await mkdtemp('/tmp/queenctl-bench-cli-push-')
  const file = path.join(dir, 'input.ndjson')
  const messages = spec.messages ?? 0
  await writeInput(file, spec, tag, messages)
  return { file, messages, dispose: () => rm(dir, { recursive: true, force: true }) }
}

/** Runs `queenctl push <queue> --wrapped --file <input>` against `serverUrl`. */
export async function runCliPush(
  serverUrl: string,
  queue: string,
  input: CliPushInput,
  spec: ScenarioSpec,
): Promise<CliPushRun> {
  const usageFile = `${input.file}.usage.json`
  const preload = `${input.file}.usage.cjs`
  await writeFile(preload, usagePreload(usageFile))
  const args = ['--require', preload, 'bin/run.js', 'push', queue, '--wrapped', '--file', input.file]
  args.push('--batch', String(spec.pushBatch), '--server', serverUrl, '--output', 'json')
  const started = performance.now()
  const child = spawn(process.execPath, args, { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')))
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
  const [exitCode] = (await once(child, 'close')) as [number | null]
  const wallMs = performance.now() - started
  const usage = JSON.parse(await readFile(usageFile, 'utf8').catch(() => '{}')) as { cpu?: number; maxRssKb?: number }
  let result: CliPushRun['result']
  try {
    result = JSON.parse(stdout) as CliPushRun['result']
  } catch {
    result = undefined
  }
  return {
    wallMs,
    exitCode,
    cpuSeconds: usage.cpu ?? 0,
    maxRssMb: (usage.maxRssKb ?? 0) / 1024,
    result,
    stderr: stderr.slice(0, 300),
  }
}
