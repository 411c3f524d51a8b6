/**
 * `queenctl completion bash|zsh|fish`: the bash script is sourced into a real bash and asked for
 * completions the way bash asks; the zsh and fish scripts are checked for the tree they carry.
 */
import { execFileSync } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import Completion from '../../src/commands/completion.js'
import { runCommand } from '../support/run-command.js'

let directory: string
let bashFile: string

beforeAll(async () => {
  directory = await mkdtemp(path.join(os.tmpdir(), 'queenctl-completion-'))
  const result = await runCommand(Completion, 'completion', ['bash'])
  expect(result.code, result.stderr).toBe(0)
  bashFile = path.join(directory, 'queenctl.bash')
  await writeFile(bashFile, result.stdout)
})
afterAll(async () => {
  await rm(directory, { recursive: true, force: true })
})

/** What bash offers after `words` (the last one being completed). */
function complete(...words: string[]): string[] {
  const line = ['queenctl', ...words].map((word) => `'${word}'`).join(' ')
  const script = `source ${bashFile}; COMP_WORDS=(${line}); COMP_CWORD=${words.length}; _queenctl_complete; printf '%s\\n' "\${COMPREPLY[@]}"`
  return execFileSync('bash', ['-c', script], { encoding: 'utf8' }).split('\n').filter(Boolean).sort()
}

describe('queenctl completion bash', () => {
  it('completes topics, verbs and flags', () => {
    expect(complete('dl')).toEqual(['dlq'])
    expect(complete('dlq', 'r')).toEqual(['requeue'])
    expect(complete('config', 'use')).toEqual(['use-context'])
    expect(complete('dlq', 'requeue', '--q')).toEqual(['--queue', '--quiet'])
  })

  it('skips flags and their values when finding the command', () => {
    expect(complete('dlq', 'requeue', '--queue', 'orders', '--d')).toEqual(['--debug', '--dry-run'])
  })

  it('completes aliases like commands', () => {
    expect(complete('messages', 'r')).toEqual(['retry', 'rm'])
  })
})

describe('queenctl completion zsh and fish', () => {
  it('zsh wraps the bash function with bashcompinit', async () => {
    const result = await runCommand(Completion, 'completion', ['zsh'])
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('autoload -U +X bashcompinit && bashcompinit\n')
    expect(result.stdout).toContain('complete -o default -F _queenctl_complete queenctl\n')
  })

  it('fish has a complete line per topic, verb and flag', async () => {
    const result = await runCommand(Completion, 'completion', ['fish'])
    expect(result.stdout).toContain("complete -c queenctl -f -n 'test (__queenctl_path) = '\\''dlq'\\''' -a")
    expect(result.stdout).toMatch(/-n 'test \(__queenctl_path\) = '\\''dlq requeue'\\''' -l yes$/m)
  })

  it('refuses an unknown shell naming the choices', async () => {
    const result = await runCommand(Completion, 'completion', ['powershell'])
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/powershell/)
    expect(result.stderr).toMatch(/bash, zsh, fish/)
  })
})
