/**
 * Help that teaches (issue 17): walks oclif.manifest.json (built by `node scripts/build.mjs`) and fails
 * on any command without a summary, description or example, any command with flags of its own but no
 * example using a long flag, and any flag or argument without a description. Then `queenctl --help` and
 * a topic's help, as a user runs them from bin/run.js.
 */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { REPO_ROOT, runCli } from '../support/cli-harness.js'

interface ManifestFlag {
  description?: string
  summary?: string
  hidden?: boolean
}
interface ManifestCommand {
  summary?: string
  description?: string
  hidden?: boolean
  examples?: (string | { command: string })[]
  flags?: Record<string, ManifestFlag>
  args?: Record<string, { description?: string }>
}

const manifest = JSON.parse(readFileSync(path.join(REPO_ROOT, 'oclif.manifest.json'), 'utf8')) as {
  commands: Record<string, ManifestCommand>
}
const packageJson = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
  oclif: { topics: Record<string, { description?: string }> }
}

/** Everything the help of `id` lacks. */
function helpProblems(id: string, command: ManifestCommand): string[] {
  const problems: string[] = []
  const examples = (command.examples ?? []).map((example) => (typeof example === 'string' ? example : example.command))
  if (!command.summary?.trim()) problems.push(`${id}: no summary`)
  if (!command.description?.trim()) problems.push(`${id}: no description`)
  if (examples.length === 0) problems.push(`${id}: no example`)
  // --debug is the only flag every command has; a command with more shows one of them spelled out.
  const ownFlags = Object.keys(command.flags ?? {}).filter((name) => name !== 'debug')
  if (examples.length > 0 && ownFlags.length > 0 && !examples.some((example) => / --[a-z]/.test(example))) {
    problems.push(`${id}: no example with a long flag`)
  }
  for (const [name, flag] of Object.entries(command.flags ?? {})) {
    if (!flag.hidden && !(flag.description ?? flag.summary)?.trim())
      problems.push(`${id}: --${name} has no description`)
  }
  for (const [name, arg] of Object.entries(command.args ?? {})) {
    if (!arg.description?.trim()) problems.push(`${id}: argument ${name} has no description`)
  }
  return problems
}

describe('the help of every command', () => {
  const visible = Object.entries(manifest.commands).filter(([, command]) => !command.hidden)

  it('covers the whole tree', () => {
    expect(visible.length).toBeGreaterThan(70)
    for (const id of ['analytics:overview', 'db:check', 'bench', 'spool:replay', 'token:create']) {
      expect(Object.keys(manifest.commands)).toContain(id)
    }
  })

  it('has a summary, a description, an example with long flags, and a description for every flag and argument', () => {
    expect(visible.flatMap(([id, command]) => helpProblems(id, command))).toEqual([])
  })

  it('catches a command that lacks them (the check can fail)', () => {
    expect(
      helpProblems('demo', {
        summary: 'x',
        examples: ['queenctl demo -o json'],
        flags: { limit: {}, debug: { description: 'stack traces' } },
      }),
    ).toEqual(['demo: no description', 'demo: no example with a long flag', 'demo: --limit has no description'])
  })

  it('describes every topic that has commands', () => {
    const topics = new Set(
      visible
        .map(([id]) => id.split(':'))
        .filter((parts) => parts.length > 1)
        .map((parts) => parts[0]!),
    )
    const undescribed = [...topics].filter((topic) => !packageJson.oclif.topics[topic]?.description)
    expect(undescribed).toEqual([])
  })
})

describe('queenctl --help', () => {
  it('lists the topics with their descriptions, then the top-level commands', async () => {
    const result = await runCli(['--help'])
    expect(result.code, result.stderr).toBe(0)
    const text = result.stdout
    expect(text).toMatch(/^The operator CLI|USAGE/m)
    const topics = text.slice(text.indexOf('TOPICS'), text.indexOf('COMMANDS'))
    for (const topic of ['analytics', 'cg', 'db', 'dlq', 'queue', 'spool', 'token']) {
      expect(topics).toMatch(new RegExp(`\\n {2}${topic} +\\S`))
    }
    const commands = text.slice(text.indexOf('COMMANDS'))
    for (const command of ['bench', 'push', 'pop', 'serve', 'top']) {
      expect(commands).toMatch(new RegExp(`\\n {2}${command} +\\S`))
    }
  })

  it("shows a topic's commands, and a command's flags and examples", async () => {
    const topic = await runCli(['analytics', '--help'])
    expect(topic.code, topic.stderr).toBe(0)
    for (const verb of [
      'overview',
      'queue-lag',
      'queue-ops',
      'queue-parked',
      'retention',
      'system',
      'worker',
      'postgres',
    ]) {
      expect(topic.stdout).toMatch(new RegExp(`\\n {2}analytics ${verb} +\\S`))
    }
    const command = await runCli(['token', 'create', '--help'])
    expect(command.code, command.stderr).toBe(0)
    expect(command.stdout).toContain('--secret-env=<value>')
    expect(command.stdout).toContain('EXAMPLES')
    expect(command.stdout).toContain(
      'queenctl token create --secret-env JWT_SECRET --sub alice --role read-write --ttl 1h',
    )
  })
})
