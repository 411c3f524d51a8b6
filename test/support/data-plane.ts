/**
 * Shared by the data-plane command tests (push, pop, tail, ack, tx, lease): NDJSON files in a temporary
 * directory, messages pushed and read back over the broker's own HTTP routes, and the built CLI spawned
 * with a piped stdin.
 */
import { spawn } from 'node:child_process'
import { createReadStream } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import { http, type TestBroker } from './broker.js'
import { cleanEnv, REPO_ROOT } from './cli-harness.js'
import { trackResource } from './resources.js'

/** A popped message as the broker's pop envelope carries it. */
export interface WireMessage {
  transactionId: string
  partitionId: string
  partition: string
  leaseId: string
  traceId: string | null
  data: unknown
  queue: string
}

/** Writes `lines` (joined by newlines, with a final newline) to `dir/name` and returns the path. */
export async function ndjsonFile(dir: string, name: string, lines: readonly string[]): Promise<string> {
  const file = path.join(dir, name)
  await writeFile(file, lines.map((line) => `${line}\n`).join(''))
  return file
}

/** Pushes payloads with the broker's push route; returns the result items. */
export async function pushPayloads(
  broker: TestBroker,
  queue: string,
  payloads: readonly unknown[],
  partition?: string,
): Promise<{ status: string; transaction_id: string }[]> {
  const items = payloads.map((payload) => ({ queue, payload, ...(partition ? { partition } : {}) }))
  const answer = await http(broker, 'POST', '/api/v1/push', { items })
  if (answer.status !== 200) throw new Error(`push: ${answer.status} ${JSON.stringify(answer.body)}`)
  return answer.body
}

/**
 * Every message still deliverable in queue mode (auto-acked, so the read consumes them), across every
 * partition, in the order of each partition.
 */
export async function drainQueue(broker: TestBroker, queue: string, group?: string): Promise<WireMessage[]> {
  const all: WireMessage[] = []
  for (;;) {
    const query = `batch=10000&partitions=1000&autoAck=true${group ? `&consumerGroup=${group}` : ''}`
    const answer = await http(broker, 'GET', `/api/v1/pop/queue/${encodeURIComponent(queue)}?${query}`)
    const messages = (answer.body?.messages ?? []) as WireMessage[]
    if (messages.length === 0) return all
    all.push(...messages)
  }
}

/** How a spawned CLI ended. */
export interface SpawnedRun {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

/**
 * Runs `node [nodeArgs] bin/run.js args` from the built dist with `stdinFile` piped into its stdin (or an
 * empty stdin), in a clean environment.
 */
export function runBuiltCli(
  args: string[],
  options: { stdinFile?: string; nodeArgs?: string[]; timeoutMs?: number } = {},
): Promise<SpawnedRun> {
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), 'bin/run.js', ...args], {
    cwd: REPO_ROOT,
    env: cleanEnv(),
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  const untrack = trackResource(`process queenctl ${args.join(' ')} (pid ${child.pid ?? '?'})`)
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')))
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
  // The child may exit before reading all of stdin (a bad line): that is not the test's error.
  child.stdin.on('error', () => undefined)
  if (options.stdinFile) createReadStream(options.stdinFile).pipe(child.stdin)
  else child.stdin.end()
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`queenctl ${args.join(' ')} still running after ${options.timeoutMs} ms:\n${stderr}`))
    }, options.timeoutMs ?? 60_000)
    child.once('close', (code, signal) => {
      clearTimeout(timer)
      untrack()
      resolve({ code, signal, stdout, stderr })
    })
  })
}
