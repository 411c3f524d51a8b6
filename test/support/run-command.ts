/**
 * Runs a queenctl command in this process, as oclif would run it from `bin/run.js`, with stdout, stderr
 * and the exit code captured (docs/conventions.md, "Tests": commands against a real in-process broker). stdout and
 * stdin are not terminals (as under a pipe), the environment holds only what the test gives plus a contexts path that
 * does not exist, and everything is restored afterwards.
 */
import { Config, type Command } from '@oclif/core'
import { REPO_ROOT } from './cli-harness.js'

/** What a run printed and how it ended. */
export interface CommandRun {
  code: number
  stdout: string
  stderr: string
}

/** A command class with the static `run` of oclif. */
type CommandClass = (new (argv: string[], config: Config) => Command) & {
  id: string
  run(argv?: string[], config?: Config): Promise<unknown>
}

let config: Promise<Config> | undefined

/** Variables a command reads that must not leak in from the developer's shell. */
const ISOLATED = [
  'QUEEN_SERVER',
  'QUEEN_TOKEN',
  'QUEEN_TENANT',
  'QUEEN_CONTEXT',
  'QUEEN_CONFIG',
  'QUEEN_TENANCY_HEADER',
  'NO_COLOR',
  'CLICOLOR',
  'CLICOLOR_FORCE',
  'FILE_BUFFER_DIR',
  'QUEEN_MAX_BODY_BYTES',
  'PG_HOST',
  'QUEEN_DATA_DIR',
  // The test suite's own (where the Queen client is, test/compat/client.ts): `env check` warns of any
  // unknown QUEEN_ variable.
  'QUEEN_CLIENT_DIR',
]

/**
 * Runs `command` (e.g. `MaintenanceStatus`, id `maintenance:status`) with `argv`. Only one command runs
 * at a time in a test file: the process streams are swapped while it runs.
 */
export async function runCommand(
  command: CommandClass,
  id: string,
  argv: string[],
  options: { env?: Record<string, string | undefined> } = {},
): Promise<CommandRun> {
  config ??= Config.load({ root: REPO_ROOT })
  const loaded = await config
  let stdout = ''
  let stderr = ''
  const writeOut = process.stdout.write.bind(process.stdout)
  const writeErr = process.stderr.write.bind(process.stderr)
  const saved = {
    env: { ...process.env },
    exitCode: process.exitCode,
    stdoutTTY: process.stdout.isTTY,
    stdinTTY: process.stdin.isTTY,
    id: command.id,
  }
  for (const name of ISOLATED) delete process.env[name]
  process.env.QUEEN_CONFIG = '/nonexistent/queenctl-test/config.yaml'
  for (const [name, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete process.env[name]
    else process.env[name] = value
  }
  process.stdout.isTTY = false
  process.stdin.isTTY = false
  process.exitCode = undefined
  const text = (chunk: string | Uint8Array) => (typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'))
  // Extra arguments (encoding, callback) are ignored: the commands write strings.
  process.stdout.write = (chunk: string | Uint8Array) => {
    stdout += text(chunk)
    return true
  }
  process.stderr.write = (chunk: string | Uint8Array) => {
    stderr += text(chunk)
    return true
  }
  command.id = id
  let code = 0
  try {
    await command.run(argv, loaded)
    code = typeof process.exitCode === 'number' ? process.exitCode : 0
  } catch (error) {
    const exit = (error as { oclif?: { exit?: number } }).oclif?.exit
    if (exit === undefined) throw error
    code = exit
  } finally {
    process.stdout.write = writeOut
    process.stderr.write = writeErr
    process.stdout.isTTY = saved.stdoutTTY
    process.stdin.isTTY = saved.stdinTTY
    process.exitCode = saved.exitCode
    command.id = saved.id
    for (const name of Object.keys(process.env)) if (!(name in saved.env)) delete process.env[name]
    Object.assign(process.env, saved.env)
  }
  return { code, stdout, stderr }
}
