/**
 * The Go queenctl compatibility tier, part four (docs/cli.md, "Compatibility with the Go queenctl"): what the Go
 * CLI's reference page documents beyond its README and --help, run unchanged through /bin/sh against a live broker:
 * `queue depth QUEUE [--group G]`, `pop`/`tail --conflation` (refused here, before anything is popped: this broker
 * has no last-value delivery, a row of the table of deliberate differences), and `login --no-browser`.
 */
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestBroker, type TestBroker } from '../support/broker.js'
import { expectUsageError, goShell, ndjson, type GoShell } from '../support/go-shell.js'
import { ack, ackBatch, pop, pushMany } from '../support/queen.js'

let broker: TestBroker
let shell: GoShell
const sh = (line: string, env?: Record<string, string>) => shell.sh(line, env)

beforeAll(async () => {
  broker = await startTestBroker({ label: 'compat_cli_reference' })
  shell = await goShell('queenctl-compat-reference-')
  const set = await sh(`queenctl config set-context local --server ${broker.url}`)
  expect(set.code, set.stderr).toBe(0)
})
afterAll(async () => {
  await broker.close()
})

describe('queue depth QUEUE [--group G]', () => {
  beforeAll(async () => {
    await pushMany(broker, 'dq', 'a', 3)
    await pushMany(broker, 'dq', 'b', 4)
    await pushMany(broker, 'dq', 'c', 5)
    // Group g: of a, three delivered and two acked (one in flight); all of b acked; c never read.
    const fromA = await pop(broker, 'dq', { batch: 3, consumerGroup: 'g', wait: false }, 'a')
    await ackBatch(broker, fromA.messages.slice(0, 2))
    const fromB = await pop(broker, 'dq', { batch: 4, consumerGroup: 'g', wait: false }, 'b')
    await ackBatch(broker, fromB.messages)
    // Queue mode: one of a acked.
    const queueMode = await pop(broker, 'dq', { batch: 1, wait: false }, 'a')
    await ack(broker, queueMode.messages[0])
  })

  it('queenctl queue depth dq: the broker answer off a terminal, a one-row summary with -o table', async () => {
    const run = await sh('queenctl queue depth dq')
    expect(run.code, run.stderr).toBe(0)
    expect(run.stderr).toBe('')
    // Without a group: queue mode's cursor on a, the slowest group's (g) on b, every message on c.
    expect(JSON.parse(run.stdout)).toEqual({
      queue: 'dq',
      group: null,
      pending: 7,
      processing: 0,
      ready: 7,
      partitionsPending: 2,
      partitionsReady: 2,
      conflation: false,
      effectivePending: 7,
      effectiveReady: 7,
      partitions: [
        { partition: 'a', pending: 2, processing: 0, ready: 2 },
        { partition: 'b', pending: 0, processing: 0, ready: 0 },
        { partition: 'c', pending: 5, processing: 0, ready: 5 },
      ],
    })
    const table = await sh('queenctl queue depth dq -o table')
    expect(table.code, table.stderr).toBe(0)
    expect(table.stdout.split('\n')[0]).toMatch(/^PENDING +PARTITIONS +PARTITIONS PENDING$/)
    expect(table.stdout.split('\n')[1]).toMatch(/^7 +3 +2$/)
    expect(await sh('queenctl -o table queue depth dq')).toEqual(table)
  })

  it('queenctl queue depth dq --group g -o json, with the global flags before and after', async () => {
    const lines = [
      'queenctl queue depth dq --group g -o json',
      `queenctl --server ${broker.url} -o json queue depth dq --group g`,
      `queenctl queue depth dq --group g --server ${broker.url} -o json`,
      'queenctl --context local queue depth --group g dq -o json',
    ]
    const runs = await Promise.all(lines.map((line) => sh(line)))
    for (const run of runs) {
      expect(run.code, run.stderr).toBe(0)
      expect(run.stderr).toBe('')
    }
    const answer = JSON.parse(runs[0]!.stdout)
    expect(answer).toMatchObject({
      queue: 'dq',
      group: 'g',
      pending: 6,
      processing: 1,
      ready: 5,
      partitionsPending: 2,
      partitionsReady: 1,
      effectivePending: 6,
    })
    expect(answer.partitions).toEqual([
      { partition: 'a', pending: 1, processing: 1, ready: 0 },
      { partition: 'b', pending: 0, processing: 0, ready: 0 },
      { partition: 'c', pending: 5, processing: 0, ready: 5 },
    ])
    for (const run of runs.slice(1)) expect(JSON.parse(run.stdout)).toEqual(answer)
    expect(await sh('queenctl queue depth dq --group g -o jsonpath=.pending')).toEqual({
      code: 0,
      stdout: '6\n',
      stderr: '',
    })
  })

  it('an unknown queue exits 1 naming it; a missing argument exits 1', async () => {
    expectUsageError(await sh('queenctl queue depth no-such-queue'), 'queue "no-such-queue" not found')
    expectUsageError(await sh('queenctl queue depth --group g'), 'queue')
  })
})

describe('pop and tail --conflation', () => {
  beforeAll(async () => {
    expect((await sh(`echo '{"v":1}' | queenctl push lv`)).code).toBe(0)
  })

  for (const command of ['pop', 'tail']) {
    it(`${command} --conflation: --cg is required, --auto-ack refused, then refused as this broker has none`, async () => {
      expectUsageError(await sh(`queenctl ${command} lv --conflation`), '--cg')
      const autoAck = await sh(`queenctl ${command} lv --cg lv-group --conflation --auto-ack`)
      expectUsageError(autoAck, '--conflation')
      expect(autoAck.stderr).toContain('--auto-ack')
      const refused = await sh(`queenctl --server ${broker.url} ${command} lv --cg lv-group --conflation`)
      expectUsageError(refused, 'this broker does not offer last-value delivery')
    })
  }

  it('nothing was leased or consumed: the message is still there for the group and for queue mode', async () => {
    const group = await sh('queenctl pop lv --cg lv-group --wait=false')
    expect(group.code, group.stderr).toBe(0)
    expect(ndjson(group.stdout).map((row) => row.data)).toEqual([{ v: 1 }])
    const queueMode = await sh('queenctl pop lv --wait=false')
    expect(ndjson(queueMode.stdout).map((row) => row.data)).toEqual([{ v: 1 }])
  })
})

describe('login --no-browser', () => {
  const configFile = () => readFile(path.join(shell.home, '.queen', 'config.yaml'), 'utf8')

  it('login --token T --no-browser stores T exactly as login --token T does', async () => {
    expect((await sh('queenctl config set-context nb --server http://127.0.0.1:9')).code).toBe(0)
    const plain = await sh('queenctl login --token qk_same_token --context nb')
    expect(plain).toEqual({ code: 0, stdout: 'logged in to context "nb"\n', stderr: '' })
    const withoutFlag = await configFile()
    const ref = withoutFlag.match(/token-ref: (file:\/\/\S+nb\.token)/)![1]!
    expect(await readFile(new URL(ref), 'utf8')).toBe('qk_same_token\n')
    expect((await sh('queenctl logout --context nb')).code).toBe(0)
    const flagged = await sh('queenctl login --token qk_same_token --no-browser --context nb')
    expect(flagged).toEqual(plain)
    expect(await configFile()).toBe(withoutFlag)
    expect(await readFile(new URL(ref), 'utf8')).toBe('qk_same_token\n')
  })

  it('login --method google|github --no-browser is refused as without the flag', async () => {
    for (const method of ['google', 'github']) {
      const run = await sh(`queenctl login --method ${method} --no-browser --context nb`)
      expectUsageError(run, `login --method ${method} is not supported by this queenctl`)
      expect(run).toEqual(await sh(`queenctl login --method ${method} --context nb`))
    }
  })
})
