/**
 * `queenctl top` without a terminal (docs/cli.md, "The top dashboard"): it exits 1 with the hint to use `status -o
 * json`, and refuses an interval under 500ms naming the flag. The dashboard itself is tested in test/ui/.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import Top from '../../src/commands/top.js'
import { startTestBroker, type TestBroker } from '../support/broker.js'
import { runCommand } from '../support/run-command.js'

let broker: TestBroker

beforeAll(async () => {
  broker = await startTestBroker({ label: 'cli_top' })
})
afterAll(async () => {
  await broker.close()
})

const top = (...argv: string[]) => runCommand(Top, 'top', ['--server', broker.url, ...argv])

describe('queenctl top without a terminal', () => {
  it('exits 1 with the hint to use status -o json', async () => {
    expect(await top()).toEqual({
      code: 1,
      stdout: '',
      stderr: 'queenctl: queenctl top needs a terminal (stdin and stdout)\nhint: use queenctl status -o json\n',
    })
  })

  it('refuses --json the same way: top prints no data', async () => {
    const run = await top('--json')
    expect(run.code).toBe(1)
    expect(JSON.parse(run.stdout)).toEqual({
      error: {
        code: 'user_error',
        message: 'queenctl top is interactive and prints no data',
        hint: 'use queenctl status -o json',
      },
    })
  })
})

describe('queenctl top flags', () => {
  it('refuses an interval under 500ms, naming the flag', async () => {
    const run = await top('--interval', '100ms')
    expect(run.code).toBe(1)
    expect(run.stderr).toContain('--interval')
    expect(run.stderr).toContain('100ms is shorter than the minimum interval of 500ms')
  })

  it('refuses an unknown pane, naming the flag and the panes', async () => {
    const run = await top('--pane', 'nodes')
    expect(run.code).toBe(1)
    expect(run.stderr).toContain('--pane')
    expect(run.stderr).toContain('overview, queues, groups, dlq, system, mesh')
  })
})
