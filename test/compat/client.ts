/**
 * The real public Queen JavaScript client, loaded from `../shared/clients/queen-mq-js` (library only).
 *
 * The library is copied under our `node_modules/.queen-mq-js/` so that its one dependency (`uuid`) resolves
 * from our install, and so that the read-only shared folder is never written. Where the client is absent,
 * the tier reports that it did not run and why (see {@link describeWithClient}).
 */
import { statSync } from 'node:fs'
import { createHash } from 'node:crypto'
import { cp, readdir, readFile, rename, rm } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { describe } from 'vitest'
import { trackResource } from '../support/resources.js'

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')

/** Where the client library is looked for; QUEEN_CLIENT_DIR overrides it. */
export const CLIENT_DIR = path.resolve(
  process.env.QUEEN_CLIENT_DIR ?? path.join(repoRoot, '..', 'shared', 'clients', 'queen-mq-js'),
)

function clientPresent(): boolean {
  // Synchronous on purpose: describe blocks are declared when the file is collected.
  return statSync(path.join(CLIENT_DIR, 'client-v2', 'index.js'), { throwIfNoEntry: false })?.isFile() ?? false
}

/** Whether the real client is available to this run. */
export const CLIENT_AVAILABLE = clientPresent()

let loaded: Promise<any> | undefined

/**
 * The client module (`Queen`, `Admin`, `Stream`, ...), loaded once per test file. The copy is kept per
 * content hash and made under a temporary name then renamed, so parallel test files share one copy and a
 * changed client gets a fresh one.
 */
export function loadClient(): Promise<any> {
  loaded ??= (async () => {
    const root = path.join(repoRoot, 'node_modules', '.queen-mq-js')
    const copy = path.join(root, await contentHash(CLIENT_DIR))
    if (!statSync(path.join(copy, 'client-v2', 'index.js'), { throwIfNoEntry: false })) {
      const staging = `${copy}.${process.pid}.tmp`
      await rm(staging, { recursive: true, force: true })
      await cp(CLIENT_DIR, staging, { recursive: true })
      await rename(staging, copy).catch(async (error: NodeJS.ErrnoException) => {
        // Another test file made the same copy first.
        await rm(staging, { recursive: true, force: true })
        if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error
      })
    }
    return import(pathToFileURL(path.join(copy, 'client-v2', 'index.js')).href)
  })()
  return loaded
}

async function contentHash(dir: string): Promise<string> {
  const hash = createHash('sha256')
  const entries = (await readdir(dir, { recursive: true, withFileTypes: true }))
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort()
  for (const file of entries) hash.update(path.relative(dir, file)).update('\0').update(await readFile(file))
  return hash.digest('hex').slice(0, 16)
}

/**
 * `describe` for a block that needs the real client. Without the client the block is reported as skipped
 * with the reason in its name, and a line on stderr says the compatibility tier did not run.
 */
export function describeWithClient(name: string, body: () => void): void {
  if (CLIENT_AVAILABLE) {
    describe(name, body)
    return
  }
  process.stderr.write(`compatibility tier NOT RUN: the Queen client is not at ${CLIENT_DIR}\n`)
  describe.skip(`${name} (not run: no Queen client at ${CLIENT_DIR})`, body)
}

const clientResources = new WeakMap<object, () => void>()

/**
 * A Queen client on a broker, without process signal handlers (`handleSignals: false`), registered with the
 * leak check until {@link closeQueen} closes it.
 */
export async function openQueen(broker: { url: string }, options: Record<string, unknown> = {}): Promise<any> {
  const { Queen } = await loadClient()
  const queen = new Queen({ url: broker.url, handleSignals: false, ...options })
  clientResources.set(queen, trackResource(`queen client on ${broker.url}`))
  return queen
}

/** Closes a client of {@link openQueen} (flushes its buffers); tolerates undefined. */
export async function closeQueen(queen: any): Promise<void> {
  if (queen === undefined || queen === null) return
  try {
    await queen.close()
  } finally {
    clientResources.get(queen)?.()
    clientResources.delete(queen)
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/** Polls `check` every 50 ms until it is true or `timeoutMs` passes; returns the last result. */
export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (await check()) return true
    if (Date.now() >= deadline) return false
    await sleep(50)
  }
}

/**
 * Runs a consumer built by `start(signal)` (a `queue(...)...consume(handler, { signal })` chain) until
 * `until()` holds or `maxMs` passes, then aborts it and waits for it to stop. The builder should use a
 * short long-poll (`timeoutMillis`) so the abort is seen quickly. Returns whether `until()` was reached and
 * the consumer's error, if it failed.
 */
export async function runConsumer(
  start: (signal: AbortSignal) => PromiseLike<unknown>,
  until: () => boolean | Promise<boolean>,
  maxMs = 15_000,
): Promise<{ reached: boolean; error: unknown }> {
  const controller = new AbortController()
  let error: unknown
  let finished = false
  const running = Promise.resolve(start(controller.signal)).then(
    () => {
      finished = true
    },
    (failure: unknown) => {
      finished = true
      error = failure
    },
  )
  const reached = await waitFor(async () => finished || (await until()), maxMs)
  controller.abort()
  await running
  return { reached: reached && (await until()), error }
}

/** Rows of `queen.messages` of a queue (optionally one partition), in partition then position order. */
export async function storedMessages(
  db: { query: (text: string, values?: unknown[]) => Promise<{ rows: any[] }> },
  queue: string,
  partition?: string,
): Promise<{ id: string; transaction_id: string; payload: unknown; partition: string; position: string }[]> {
  const result = await db.query(
    `SELECT m.id::text AS id, m.transaction_id, m.payload, p.name AS partition, m.position::text AS position
       FROM queen.messages m
       JOIN queen.partitions p ON p.id = m.partition_id
       JOIN queen.queues q ON q.id = p.queue_id
      WHERE q.name = $1 AND ($2::text IS NULL OR p.name = $2)
      ORDER BY p.name, m.position`,
    [queue, partition ?? null],
  )
  return result.rows
}
