/**
 * The real public Queen JavaScript client, loaded from `../shared/clients/queen-mq-js` (library only).
 *
 * The library is copied under our `node_modules/.queen-mq-js/` so that its one dependency (`uuid`) resolves
 * from our install, and so that the read-only shared folder is never written. Where the client is absent,
 * the tier reports that it did not run and why (see {@link describeWithClient}).
 */
import { statSync } from 'node:fs'
import { cp, rm, stat } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { describe } from 'vitest'

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

/** The client module (`Queen`, `Admin`, `Stream`, ...), loaded once per test file. */
export function loadClient(): Promise<any> {
  loaded ??= (async () => {
    const copy = path.join(repoRoot, 'node_modules', '.queen-mq-js', String(process.pid))
    await rm(copy, { recursive: true, force: true })
    await cp(CLIENT_DIR, copy, { recursive: true })
    await stat(path.join(copy, 'client-v2', 'index.js'))
    return import(pathToFileURL(path.join(copy, 'client-v2', 'index.js')).href)
  })()
  return loaded
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
