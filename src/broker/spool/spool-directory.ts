/**
 * The spool directory (docs/operations.md, "Spool directory and fallback"): created with mode 0700, proven writable by
 * a fsynced probe file, locked by `spool.lock` (a second live broker refuses it; a dead owner's lock is taken over),
 * with a loud fallback to `<OS temp>/queen-spool-<server id>` when the configured directory cannot be used.
 */
import { closeSync, fsyncSync, openSync, writeSync } from 'node:fs'
import { mkdir, open, readFile, rm, writeFile } from 'node:fs/promises'
import { hostname, tmpdir } from 'node:os'
import path from 'node:path'
import { makeDirectory, pidIsAlive } from '../../platform/postgres/system-users.js'

/** Where the spool lives and how it got there. */
export interface OpenedSpoolDirectory {
  dir: string
  /** True when the configured directory failed and the OS temp directory is used instead. */
  fallback: boolean
  /** Why the configured directory was not usable (for the warning). */
  fallbackReason?: string
  /** Removes the lock (at shutdown). */
  release(): Promise<void>
}

/** Raised when a live broker owns the directory. */
export class SpoolLockedError extends Error {}

const LOCK_FILE = 'spool.lock'
const PROBE_FILE = '.probe'

/** fsyncs a directory so renames and creations in it survive a crash. */
export async function fsyncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r')
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}

async function prepare(dir: string, serverId: string): Promise<() => Promise<void>> {
  // Missing parents 0755 (a recursive 0700 mkdir would lock PostgreSQL's user out of /var/lib/queen/data).
  await makeDirectory(dir, 0o700)
  await mkdir(path.join(dir, 'failed'), { recursive: true, mode: 0o700 })
  const probe = path.join(dir, PROBE_FILE)
  const fd = openSync(probe, 'w', 0o600)
  try {
    writeSync(fd, 'probe')
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
  await rm(probe, { force: true })

  const lockFile = path.join(dir, LOCK_FILE)
  const content = JSON.stringify({ pid: process.pid, serverId, host: hostname() })
  try {
    await writeFile(lockFile, content, { flag: 'wx', mode: 0o600 })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    const owner = JSON.parse(await readFile(lockFile, 'utf8').catch(() => '{}')) as { pid?: number; host?: string }
    if (owner.pid && owner.pid !== process.pid && owner.host === hostname() && pidIsAlive(owner.pid)) {
      throw new SpoolLockedError(
        `FILE_BUFFER_DIR=${dir} is locked by a running broker (pid ${owner.pid}); two brokers must never share a spool`,
      )
    }
    await writeFile(lockFile, content, { mode: 0o600 })
  }
  await fsyncDirectory(dir)
  return async () => {
    await rm(lockFile, { force: true })
  }
}

/**
 * Opens the configured spool directory, or the fallback. Throws SpoolLockedError when a live broker owns
 * it, and a plain Error when neither directory can be used (the broker then runs with state `unwritable`).
 */
export async function openSpoolDirectory(configured: string, serverId: string): Promise<OpenedSpoolDirectory> {
  try {
    const release = await prepare(configured, serverId)
    return { dir: configured, fallback: false, release }
  } catch (error) {
    if (error instanceof SpoolLockedError) throw error
    const fallbackDir = path.join(tmpdir(), `queen-spool-${serverId.replace(/[^A-Za-z0-9._-]/g, '_')}`)
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message
    const release = await prepare(fallbackDir, serverId)
    return { dir: fallbackDir, fallback: true, fallbackReason: `${configured}: ${reason}`, release }
  }
}
