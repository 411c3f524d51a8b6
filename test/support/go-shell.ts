/**
 * The shell of the Go queenctl compatibility tier (test/compat-cli/; docs/cli.md, "Compatibility with the Go
 * queenctl"): a scratch HOME (so ~/.queen/config.yaml is its own) with `queenctl` on PATH as a script that runs the
 * built bin/run.js, and command lines run through /bin/sh exactly as a user's script would run them.
 */
import { chmod, mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { expect } from 'vitest'
import { cleanEnv, REPO_ROOT, startProcess, tempDir } from './cli-harness.js'

/** How one command line ended. */
export interface ShellRun {
  code: number | null
  stdout: string
  stderr: string
}

/** A scratch home with `queenctl` on PATH. */
export interface GoShell {
  home: string
  /** The folder holding the `queenctl` script (PATH is this folder, then the test's own PATH). */
  bin: string
  /** Runs one command line through /bin/sh in `home`; `env` adds or replaces variables. */
  sh(line: string, env?: Record<string, string>): Promise<ShellRun>
}

export async function goShell(prefix: string): Promise<GoShell> {
  const home = await tempDir(prefix)
  const bin = path.join(home, 'bin')
  await mkdir(bin)
  // `queenctl` as a script finds it: the built CLI, run by this Node.
  const shim = path.join(bin, 'queenctl')
  await writeFile(shim, `#!/bin/sh\nexec "${process.execPath}" "${path.join(REPO_ROOT, 'bin/run.js')}" "$@"\n`)
  await chmod(shim, 0o755)
  async function sh(line: string, env: Record<string, string> = {}): Promise<ShellRun> {
    const child = startProcess(
      '/bin/sh',
      ['-c', line],
      cleanEnv({ PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`, HOME: home, ...env }),
      line,
      home,
    )
    try {
      const exit = await child.exited(60_000)
      return { code: exit.code, stdout: child.stdout(), stderr: child.stderr() }
    } finally {
      await child.kill()
    }
  }
  return { home, bin, sh }
}

/** A usage error: exit 1, nothing on stdout, the message naming `fragment` on stderr. */
export function expectUsageError(run: ShellRun, fragment: string): void {
  expect(run.code, run.stderr).toBe(1)
  expect(run.stdout).toBe('')
  expect(run.stderr).toContain(fragment)
}

/** The objects of NDJSON output. */
export function ndjson(text: string): Record<string, unknown>[] {
  return text
    .trim()
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>)
}
