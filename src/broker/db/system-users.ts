/** Small operating-system lookups used by the embedded PostgreSQL manager. */
import { readFile } from 'node:fs/promises'

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
