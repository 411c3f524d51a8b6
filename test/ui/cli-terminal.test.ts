/**
 * The CLI under a real terminal (docs/cli.md, "Destructive verbs" and issue 17): the built CLI (`node bin/run.js`,
 * after `npm run build`) runs in a detached tmux session of its own against an in-process broker. A destructive verb
 * without --yes asks on the terminal: `maintenance on` takes y/N (both answers, the flag read back from the broker),
 * `queue delete` wants the queue's name typed. `apply -f` shows listr2 steps on the terminal and plain lines when
 * piped, and the queues it configured are checked on the broker.
 */
import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { http, startTestBroker, type TestBroker } from '../support/broker.js'
import { REPO_ROOT, tempDir } from '../support/cli-harness.js'
import { configure, pushMany } from '../support/queen.js'
import { trackResource } from '../support/resources.js'

const run = promisify(execFile)

let broker: TestBroker
let directory: string

beforeAll(async () => {
  broker = await startTestBroker({ label: 'ui_cli_tmux' })
  directory = await tempDir('cli-terminal')
})
afterAll(async () => {
  await broker.close()
  await rm(directory, { recursive: true, force: true })
})

/** A tmux server of our own (its own socket) running one clean shell in session `cli`; `kill()` ends it. */
async function terminal() {
  const socket = `queenctl-cli-${randomBytes(4).toString('hex')}`
  const tmux = (...args: string[]) => run('tmux', ['-L', socket, '-f', '/dev/null', ...args], { cwd: REPO_ROOT })
  const untrack = trackResource(`tmux server ${socket}`)
  // No CI variable, a real TERM, and a contexts file that does not exist (the developer's stays out).
  const shell =
    `env -i PATH=${process.env.PATH ?? '/usr/bin:/bin'} HOME=/tmp TERM=xterm-256color ` +
    `QUEEN_CONFIG=/nonexistent/queenctl-tty/config.yaml PS1='$ ' bash --norc --noprofile`
  await tmux('new-session', '-d', '-s', 'cli', '-x', '160', '-y', '40', shell)
  const screen = async () => (await tmux('capture-pane', '-p', '-t', 'cli', '-S', '-200')).stdout
  return {
    screen,
    /** Types a line (Enter included). */
    type: (text: string) => tmux('send-keys', '-t', 'cli', text, 'Enter'),
    clear: async () => {
      await tmux('send-keys', '-t', 'cli', 'clear', 'Enter')
      await tmux('clear-history', '-t', 'cli')
    },
    async waitFor(predicate: (text: string) => boolean, what: string): Promise<string> {
      const deadline = Date.now() + 30_000
      for (;;) {
        const text = await screen()
        if (predicate(text)) return text
        if (Date.now() > deadline) throw new Error(`the terminal never showed ${what}; it shows:\n${text}`)
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
    },
    async kill() {
      await tmux('kill-server').catch(() => undefined)
      untrack()
    },
  }
}

const maintenance = async () => (await http(broker, 'GET', '/api/v1/system/maintenance')).body.maintenanceMode

describe('destructive verbs on a terminal', () => {
  it('maintenance on asks y/N: n changes nothing and exits 1, y turns it on', async () => {
    const term = await terminal()
    try {
      const command = `node bin/run.js maintenance on --server ${broker.url}; echo "exit=$?"`
      await term.type(command)
      await term.waitFor((text) => text.includes('[y/N]'), 'the y/N question')
      await term.type('n')
      const refused = await term.waitFor((text) => /exit=\d/.test(text), 'the exit status after n')
      expect(refused).toContain('queenctl: not confirmed: did not turn push maintenance on')
      expect(refused).toContain('exit=1')
      expect(await maintenance()).toBe(false)

      await term.clear()
      await term.type(command)
      await term.waitFor((text) => text.includes('[y/N]'), 'the second question')
      await term.type('y')
      const accepted = await term.waitFor((text) => /exit=\d/.test(text), 'the exit status after y')
      expect(accepted).toContain('exit=0')
      expect(accepted).toMatch(/push: on/)
      expect(await maintenance()).toBe(true)
    } finally {
      await term.kill()
      await http(broker, 'POST', '/api/v1/system/maintenance', { enabled: false })
    }
  })

  it('queue delete wants the name typed: another answer keeps the queue, the name deletes it', async () => {
    await configure(broker, 'tty-doomed')
    await pushMany(broker, 'tty-doomed', 'p1', 3)
    const term = await terminal()
    try {
      const command = `node bin/run.js queue delete tty-doomed --server ${broker.url}; echo "exit=$?"`
      await term.type(command)
      await term.waitFor((text) => text.includes('Type tty-doomed to confirm:'), 'the name question')
      await term.type('y')
      const refused = await term.waitFor((text) => /exit=\d/.test(text), 'the exit status after y')
      expect(refused).toContain('queenctl: not confirmed: did not delete queue tty-doomed')
      expect(refused).toContain('exit=1')
      expect((await http(broker, 'GET', '/api/v1/resources/queues/tty-doomed')).status).toBe(200)

      await term.clear()
      await term.type(command)
      await term.waitFor((text) => text.includes('Type tty-doomed to confirm:'), 'the second question')
      await term.type('tty-doomed')
      const deleted = await term.waitFor((text) => /exit=\d/.test(text), 'the exit status after the name')
      expect(deleted).toContain('deleted queue "tty-doomed"')
      expect(deleted).toContain('exit=0')
      expect((await http(broker, 'GET', '/api/v1/resources/queues/tty-doomed')).status).toBe(404)
    } finally {
      await term.kill()
    }
  })
})

describe('apply -f on a terminal and through a pipe', () => {
  it('shows listr2 steps on the terminal and one plain line per document when piped', async () => {
    const file = path.join(directory, 'queues.yaml')
    const documents = (lease: number) =>
      [
        'kind: Queue',
        'name: tty-a',
        'spec:',
        `  leaseTime: ${lease}`,
        '---',
        'kind: Queue',
        'name: tty-b',
        'spec:',
        `  retryLimit: ${lease / 10}`,
        '',
      ].join('\n')
    const term = await terminal()
    try {
      await writeFile(file, documents(120))
      await term.type(`node bin/run.js apply --file ${file} --server ${broker.url}; echo "exit=$?"`)
      const styled = await term.waitFor((text) => /exit=\d/.test(text), 'the applied steps')
      expect(styled).toMatch(/[✔√] Queue tty-a: configured/)
      expect(styled).toMatch(/[✔√] Queue tty-b: configured/)
      expect(styled).toContain('exit=0')
      expect((await http(broker, 'GET', '/api/v1/resources/queues/tty-a')).body.options.leaseTime).toBe(120)

      await term.clear()
      await writeFile(file, documents(150))
      await term.type(`node bin/run.js apply --file ${file} --server ${broker.url} 2>&1 | cat; echo "exit=$?"`)
      const piped = await term.waitFor((text) => /exit=\d/.test(text), 'the piped lines')
      const lines = piped.split('\n')
      expect(lines).toContain('Queue tty-a: configured')
      expect(lines).toContain('Queue tty-b: configured')
      expect(piped).not.toMatch(/[✔√]/)
      expect(piped).toContain('exit=0')
      const queue = await http(broker, 'GET', '/api/v1/resources/queues/tty-b')
      expect(queue.body.options.retryLimit).toBe(15)
    } finally {
      await term.kill()
    }
  })
})
