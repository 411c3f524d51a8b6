/**
 * The spool directory's missing parents are created 0755 and only the spool itself 0700 (issue 16): the
 * default spool /var/lib/queen/buffers is created before the data directory /var/lib/queen/data, and a
 * 0700 /var/lib/queen would lock the embedded PostgreSQL's unprivileged user out of the latter.
 */
import { chmod, mkdtemp, rm, stat } from 'node:fs/promises'
import path from 'node:path'
import { expect, it } from 'vitest'
import { openSpoolDirectory } from '../../../src/broker/spool/spool-directory.js'

const mode = async (file: string) => (await stat(file)).mode & 0o777

it('creates missing parents 0755 and the spool directory 0700', async () => {
  const base = await mkdtemp('/tmp/queenctl-spool-parents-')
  await chmod(base, 0o755)
  try {
    const dir = path.join(base, 'queen', 'buffers', 'spool')

    const opened = await openSpoolDirectory(dir, 'spool-parents')
    await opened.release()

    expect(opened).toMatchObject({ dir, fallback: false })
    expect(await mode(path.join(base, 'queen'))).toBe(0o755)
    expect(await mode(path.join(base, 'queen', 'buffers'))).toBe(0o755)
    expect(await mode(dir)).toBe(0o700)
    expect(await mode(path.join(dir, 'failed'))).toBe(0o700)
  } finally {
    await rm(base, { recursive: true, force: true })
  }
})
