/**
 * `queenctl completion bash|zsh|fish|powershell`: the bash script is sourced into a real bash and asked for
 * completions the way bash asks; the zsh, fish and PowerShell scripts are checked for the tree they carry (no
 * PowerShell runs here: it is in neither the npm registry nor Debian's).
 */
import { execFileSync } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import Completion from '../../src/commands/completion.js'
import { REPO_ROOT } from '../support/cli-harness.js'
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
    const result = await runCommand(Completion, 'completion', ['tcsh'])
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/tcsh/)
    expect(result.stderr).toMatch(/bash, zsh, fish, powershell/)
  })
})

describe('queenctl completion powershell', () => {
  /** The candidates the script's table holds for a command path, read back from its `'path' = @(...)` line. */
  function candidates(script: string, path: string): string[] {
    const line = script.split('\n').find((text) => text.trimStart().startsWith(`'${path}' = @(`))
    if (line === undefined) return []
    return [...line.slice(line.indexOf('@(')).matchAll(/'((?:[^']|'')*)'/g)].map((match) => match[1]!)
  }

  it('registers a native argument completer for queenctl', async () => {
    const result = await runCommand(Completion, 'completion', ['powershell'])
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toContain("Register-ArgumentCompleter -Native -CommandName 'queenctl' -ScriptBlock {\n")
    expect(result.stdout).toContain('param($wordToComplete, $commandAst, $cursorPosition)')
    expect(result.stdout).toContain('[System.Management.Automation.CompletionResult]::new(')
  })

  it('lists every visible top-level command of the manifest, and the verbs and flags below them', async () => {
    const script = (await runCommand(Completion, 'completion', ['powershell'])).stdout
    const manifest = JSON.parse(await readFile(path.join(REPO_ROOT, 'oclif.manifest.json'), 'utf8')) as {
      commands: Record<string, { hidden?: boolean; aliases?: string[] }>
    }
    const visible = Object.values(manifest.commands).filter((command) => !command.hidden)
    const ids = visible.flatMap((command) => [(command as { id: string }).id, ...(command.aliases ?? [])])
    const topLevel = [...new Set(ids.map((id) => id.split(':')[0]!))].sort()
    expect(candidates(script, '').sort()).toEqual(topLevel)
    expect(candidates(script, '')).toEqual(expect.arrayContaining(['push', 'tail', 'partition', 'completion']))
    expect(candidates(script, 'partition')).toEqual(expect.arrayContaining(['clear', 'describe', 'list', 'seek']))
    expect(candidates(script, 'dlq requeue')).toEqual(expect.arrayContaining(['--queue', '--yes', '--dry-run']))
  })
})
