/** Small operating-system lookups and directory helpers used by the embedded PostgreSQL and the spool. */
import { chmod, mkdir, readFile, stat } from 'node:fs/promises'
import path from 'node:path'

/** A user from /etc/passwd. */
export interface SystemUser {
  name: string
  uid: number
  gid: number
}

/** Looks a user up in /etc/passwd; undefined when absent (or on systems without that file). */
export async function readPasswdUser(name: string): Promise<SystemUser | undefined> {
  const text = await readFile('/etc/passwd', 'utf8').catch(() => '')
  for (const line of text.split('\n')) {
    const [user, , uid, gid] = line.split(':')
    if (user === name && uid !== undefined && gid !== undefined) {
      return { name, uid: Number.parseInt(uid, 10), gid: Number.parseInt(gid, 10) }
    }
  }
  return undefined
}

/** True when a process with this pid exists (signal 0 probes without sending anything). */
export function pidIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** The directories on the way to `dir` that do not exist yet, outermost first. */
export async function missingDirectories(dir: string): Promise<string[]> {
  const missing: string[] = []
  for (let current = path.resolve(dir); ; current = path.dirname(current)) {
    const absent = await stat(current).then(
      () => false,
      (error: NodeJS.ErrnoException) => error.code === 'ENOENT',
    )
    if (!absent || current === path.dirname(current)) return missing
    missing.unshift(current)
  }
}

/**
 * Creates `dir` with `mode`, and its missing parents with 0755. `mkdir({ recursive, mode })` would give
 * every parent `mode` too: a 0700 `/var/lib/queen` locks the unprivileged PostgreSQL user out of
 * `/var/lib/queen/data`. Modes are set with chmod so a strict umask cannot narrow them. An existing `dir`
 * keeps its mode.
 */
export async function makeDirectory(dir: string, mode: number): Promise<void> {
  const target = path.resolve(dir)
  for (const missing of await missingDirectories(target)) {
    const wanted = missing === target ? mode : 0o755
    const created = await mkdir(missing, { mode: wanted }).then(
      () => true,
      (error: NodeJS.ErrnoException) => {
        if (error.code !== 'EEXIST') throw error
        return false
      },
    )
    if (created) await chmod(missing, wanted)
  }
}
