/**
 * `queenctl top` in a real terminal: the built CLI (`node bin/run.js top`, after `npm run build`) runs in
 * a detached tmux session of 80x24 against a broker with live traffic; the test types with send-keys and
 * reads the screen with capture-pane. The dashboard shows the queue, `2` switches to Queues, `q` exits 0,
 * the shell's screen is back afterwards (the alternate screen was left), NO_COLOR turns colours off, and
 * Ctrl-C restores the terminal like `q`.
 */
import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestBroker, type TestBroker } from '../support/broker.js'
import { REPO_ROOT } from '../support/cli-harness.js'
import { configure, pushMany } from '../support/queen.js'
import { trackResource } from '../support/resources.js'

const run = promisify(execFile)

let broker: TestBroker

beforeAll(async () => {
  broker = await startTestBroker({ label: 'ui_top_tmux' })
  await configure(broker, 'tty-orders')
})
afterAll(async () => {
  await broker.close()
})

/** A tmux server of our own (its own socket), ended by `kill()`. */
function tmuxServer() {
  const socket = `queenctl-top-${randomBytes(4).toString('hex')}`
  const tmux = (...args: string[]) => run('tmux', ['-L', socket, '-f', '/dev/null', ...args], { cwd: REPO_ROOT })
  const untrack = trackResource(`tmux server ${socket}`)
  return {
    tmux,
    screen: async () => (await tmux('capture-pane', '-p', '-t', 'top')).stdout,
    /** The screen with its colours and attributes as escape sequences. */
    styledScreen: async () => (await tmux('capture-pane', '-p', '-e', '-t', 'top')).stdout,
    async kill() {
      await tmux('kill-server').catch(() => undefined)
      untrack()
    },
  }
}

/** Polls the screen until it satisfies `predicate`. */
async function waitForScreen(screen: () => Promise<string>, predicate: (text: string) => boolean, what: string) {
  const deadline = Date.now() + 30_000
  for (;;) {
    const text = await screen()
    if (predicate(text)) return text
    if (Date.now() > deadline) throw new Error(`the terminal never showed ${what}; it shows:\n${text}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

describe('queenctl top in tmux', () => {
  it('shows the queue under live traffic, switches panes, quits with 0 and restores the terminal', async () => {
    // Live traffic: a push every 100 ms, and the broker's metrics write and stats refresh every second.
    let pushing = true
    const pusher = (async () => {
      for (let round = 0; pushing && round < 600; round++) {
        await pushMany(broker, 'tty-orders', 'p1', 5, round * 5)
        if (round % 10 === 0) {
          await broker.services.observability.metricsJob.runOnce()
          await broker.services.observability.refreshStats()
        }
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
    })()
    const server = tmuxServer()
    try {
      // A clean environment: no CI variable (Ink renders only the last frame under CI), a real TERM.
      const shell = `env -i PATH=${process.env.PATH ?? '/usr/bin:/bin'} HOME=/tmp TERM=xterm-256color PS1='$ ' bash --norc --noprofile`
      await server.tmux('new-session', '-d', '-s', 'top', '-x', '80', '-y', '24', shell)
      await server.tmux('send-keys', '-t', 'top', "echo 'shell before top'", 'Enter')
      await waitForScreen(server.screen, (text) => text.includes('\nshell before top'), 'the shell')
      const command = `node bin/run.js top --server ${broker.url} --interval 500ms; echo "top exited $?"`
      await server.tmux('send-keys', '-t', 'top', command, 'Enter')

      const overview = await waitForScreen(
        server.screen,
        (text) => text.includes('[1 Overview]') && text.includes('● live') && /push\/s\s+[1-9]/.test(text),
        'the Overview with a push rate',
      )
      expect(overview).toContain(`queenctl top · ${broker.url} · every 500ms`)
      expect(overview).not.toContain('shell before top')
      const lines = overview.replace(/\n+$/, '').split('\n')
      expect(lines.length).toBeLessThanOrEqual(24)
      expect(Math.max(...lines.map((line) => [...line].length))).toBeLessThanOrEqual(80)
      // On a colour terminal the dashboard colours (the green "● live", the bold titles).
      // eslint-disable-next-line no-control-regex -- an SGR escape sequence is exactly what is looked for
      expect(await server.styledScreen()).toMatch(/\u001b\[[0-9;]*m/)

      await server.tmux('send-keys', '-t', 'top', '2')
      const queues = await waitForScreen(
        server.screen,
        (text) => text.includes('[2 Queues]') && /› tty-orders\s+\d+\s+\d+/.test(text),
        'the Queues pane with the queue',
      )
      expect(queues).toContain('QUEUE')
      expect(queues).toContain('PUSH/s')

      await server.tmux('send-keys', '-t', 'top', 'q')
      const after = await waitForScreen(server.screen, (text) => text.includes('top exited'), 'the exit status')
      expect(after).toContain('top exited 0')
      // The shell's screen is back as it was, with no dashboard left on it.
      expect(after).toContain('shell before top')
      expect(after).toContain('node bin/run.js top --server')
      expect(after).not.toContain('queenctl top ·')
      expect(after).not.toContain('[2 Queues]')

      // NO_COLOR: the same dashboard without a single colour or attribute.
      await server.tmux('send-keys', '-t', 'top', 'clear', 'Enter')
      await server.tmux('send-keys', '-t', 'top', `NO_COLOR=1 ${command}`, 'Enter')
      await waitForScreen(server.screen, (text) => text.includes('● live'), 'the plain dashboard')
      expect(await server.styledScreen()).not.toContain('\u001b[')
      await server.tmux('send-keys', '-t', 'top', 'q')
      await waitForScreen(server.screen, (text) => text.includes('top exited 0'), 'the second exit')

      // Ctrl-C leaves the same way as q: exit 0 and the shell's screen back.
      await server.tmux('send-keys', '-t', 'top', 'clear', 'Enter')
      await server.tmux('send-keys', '-t', 'top', "echo 'before ctrl-c'", 'Enter')
      await server.tmux('send-keys', '-t', 'top', command, 'Enter')
      await waitForScreen(server.screen, (text) => text.includes('● live'), 'the third dashboard')
      await server.tmux('send-keys', '-t', 'top', 'C-c')
      const afterInterrupt = await waitForScreen(server.screen, (text) => text.includes('top exited'), 'the third exit')
      expect(afterInterrupt).toContain('top exited 0')
      expect(afterInterrupt).toContain('before ctrl-c')
      expect(afterInterrupt).not.toContain('queenctl top ·')
    } finally {
      pushing = false
      await server.kill()
      await pusher
    }
  })
})
