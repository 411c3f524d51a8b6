/**
 * The keyring tool failing at once (src/cli/keyring.ts): `secret-tool` without a D-Bus session exits before it
 * reads the token on stdin. The CLI must answer with the tool's refusal, not die of the broken pipe (a CI run of
 * 360cdf8 died that way in test/cli/contexts.test.ts). A stub `secret-tool` that exits 1 without reading stands
 * in for it, and a 1 MiB token makes the write outlast the pipe's buffer, so the broken pipe always happens.
 */
import { execFile } from 'node:child_process'
import { chmod, mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'

const REPO = fileURLToPath(new URL('../..', import.meta.url))

describe.skipIf(process.platform !== 'linux')('a keyring tool that exits without reading its input', () => {
  it('is a KeyringError naming the refusal, for a store and for a read, and the process lives on', async () => {
    const bin = await mkdtemp(path.join(tmpdir(), 'queen-keyring-'))
    await writeFile(path.join(bin, 'secret-tool'), '#!/bin/sh\necho "Cannot autolaunch D-Bus" >&2\nexit 1\n')
    await chmod(path.join(bin, 'secret-tool'), 0o755)
    const script = `
      import { readKeyringToken, storeKeyringToken } from './src/cli/keyring.ts'
      const answers = []
      for (const attempt of [() => storeKeyringToken('ctx', 'x'.repeat(1 << 20)), () => readKeyringToken('ctx')]) {
        try { await attempt(); answers.push('stored') } catch (error) { answers.push(error.constructor.name + ': ' + error.message) }
      }
      console.log(JSON.stringify(answers))
    `
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '--eval', script],
      { cwd: REPO, env: { ...process.env, PATH: `${bin}:${process.env.PATH}` } },
    )
    expect(JSON.parse(stdout.trim())).toEqual([
      'KeyringError: the system keyring refused the token: Cannot autolaunch D-Bus',
      'KeyringError: no token stored under ctx in the system keyring: Cannot autolaunch D-Bus',
    ])
  })
})
