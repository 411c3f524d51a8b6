/**
 * `queenctl tail` (docs/cli.md, "Data-plane commands") against a real in-process broker: the drain and idle modes in
 * this process with stdout, stderr and the exit code captured, and `--follow --ack` as a child of the built CLI that is
 * stopped with SIGINT. What was acked is read back from the broker; --concurrency is seen in the broker's count of
 * parked long-polls.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import Tail from '../../src/commands/tail.js'
import { http, startTestBroker, type TestBroker } from '../support/broker.js'
import { startCli } from '../support/cli-harness.js'
import { drainQueue, pushPayloads } from '../support/data-plane.js'
import { runCommand } from '../support/run-command.js'

let broker: TestBroker

beforeAll(async () => {
  broker = await startTestBroker({ label: 'cli_tail' })
})
afterAll(async () => {
  await broker.close()
})

const tail = (...argv: string[]) => runCommand(Tail, 'tail', ['--server', broker.url, ...argv])

interface Row {
  partitionId: string
  transactionId: string
  consumerGroup: string
  data: unknown
}

let queues = 0
const freshQueue = () => `tail-${++queues}`

const rows = (stdout: string) =>
  stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Row)

/** Whether the broker counts the message as consumed by `group`. */
async function consumedBy(row: Row, group: string): Promise<boolean> {
  const answer = await http(broker, 'GET', `/api/v1/messages/${row.partitionId}/${row.transactionId}`)
  const groups = answer.body.consumerGroups as { name: string; consumed: boolean }[]
  return groups.some((entry) => entry.name === group && entry.consumed)
}

describe('queenctl tail', () => {
  it('prints every available message as group queenctl-tail and, with --ack, acks them', async () => {
    const queue = freshQueue()
    await pushPayloads(broker, queue, [1, 2])
    await pushPayloads(broker, queue, [3], 'other')
    const result = await tail(queue, '--ack', '--batch', '2')
    expect(result.code, result.stderr).toBe(0)
    expect(result.stderr).toBe('')
    const printed = rows(result.stdout)
    expect(printed.map((row) => row.data).sort()).toEqual([1, 2, 3])
    expect(new Set(printed.map((row) => row.consumerGroup))).toEqual(new Set(['queenctl-tail']))
    for (const row of printed) expect(await consumedBy(row, 'queenctl-tail')).toBe(true)
    // Its own cursor: nothing left for the group, everything still there for queue mode.
    expect(await tail(queue)).toEqual({ code: 4, stdout: '', stderr: '' })
    expect((await drainQueue(broker, queue)).map((message) => message.data).sort()).toEqual([1, 2, 3])
  })

  it('leaves the messages leased without --ack', async () => {
    const queue = freshQueue()
    await pushPayloads(broker, queue, ['kept'])
    const result = await tail(queue, '--cg', 'peek')
    expect(rows(result.stdout).map((row) => row.data)).toEqual(['kept'])
    const [row] = rows(result.stdout)
    expect(await consumedBy(row!, 'peek')).toBe(false)
    // Leased, not acked: the group gets nothing until the lease expires.
    expect(await tail(queue, '--cg', 'peek')).toEqual({ code: 4, stdout: '', stderr: '' })
  })

  it('stops after --limit messages', async () => {
    const queue = freshQueue()
    await pushPayloads(broker, queue, [1, 2, 3, 4])
    const result = await tail(queue, '--limit', '3', '--ack')
    expect(result.code).toBe(0)
    expect(rows(result.stdout).map((row) => row.data)).toEqual([1, 2, 3])
    const rest = await tail(queue, '--ack')
    expect(rows(rest.stdout).map((row) => row.data)).toEqual([4])
  })

  it('consumes one partition with --partition', async () => {
    const queue = freshQueue()
    await pushPayloads(broker, queue, ['a'], 'a')
    await pushPayloads(broker, queue, ['b'], 'b')
    const result = await tail(queue, '--partition', 'b', '--ack')
    expect(rows(result.stdout).map((row) => row.data)).toEqual(['b'])
  })

  it('starts a new group at new messages with --from new, exit 4 when there are none', async () => {
    const queue = freshQueue()
    await pushPayloads(broker, queue, ['old'])
    expect(await tail(queue, '--cg', 'latecomer', '--from', 'new')).toEqual({ code: 4, stdout: '', stderr: '' })
    await pushPayloads(broker, queue, ['new'])
    expect(rows((await tail(queue, '--cg', 'latecomer')).stdout).map((row) => row.data)).toEqual(['new'])
    expect(rows((await tail(queue, '--cg', 'historian', '--since', '1d ago')).stdout).map((row) => row.data)).toEqual([
      'old',
      'new',
    ])
  })

  it('waits for messages with --idle and stops once none came for that long', async () => {
    const queue = freshQueue()
    expect(await tail(queue, '--idle', '300ms')).toEqual({ code: 4, stdout: '', stderr: '' })
    const tailing = tail(queue, '--idle', '1500ms', '--ack')
    await new Promise((resolve) => setTimeout(resolve, 300))
    await pushPayloads(broker, queue, ['arrived'])
    const result = await tailing
    expect(result.code).toBe(0)
    expect(rows(result.stdout).map((row) => row.data)).toEqual(['arrived'])
  })

  it('exits 1 on bad usage', async () => {
    // -o json is taken and ignored, as the Go queenctl does: tail always prints NDJSON (here: nothing, exit 4).
    const json = await tail('q', '-o', 'json')
    expect(json).toEqual({ code: 4, stdout: '', stderr: '' })
    const idle = await tail('q', '--idle', 'later')
    expect(idle.code).toBe(1)
    expect(idle.stderr).toMatch(/^queenctl: --idle: later is not a duration/)
    const since = await tail('q', '--since', 'whenever')
    expect(since.code).toBe(1)
    expect(since.stderr).toMatch(/^queenctl: --since: "whenever" is not a time/)
    const none = await tail()
    expect(none.code).toBe(1)
    expect(none.stderr).toMatch(/^queenctl: Missing 1 required arg/)
    const unknown = await tail('q', '--bogus')
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toMatch(/^queenctl: Nonexistent flag: --bogus\n/)
  })

  it('follows with --ack until SIGINT, then exits 0 with the printed messages acked (built CLI)', async () => {
    const queue = freshQueue()
    const child = startCli(['tail', queue, '--follow', '--ack', '--server', broker.url])
    try {
      await pushPayloads(broker, queue, [{ n: 1 }, { n: 2 }])
      await child.waitFor(/"n":2\}\}\n/, 30_000)
      await pushPayloads(broker, queue, [{ n: 3 }])
      await child.waitFor(/"n":3\}\}\n/, 30_000)
      // Parked in its long poll now; Ctrl-C ends it cleanly.
      process.kill(child.pid, 'SIGINT')
      const exit = await child.exited(30_000)
      expect(exit).toEqual({ code: 0, signal: null })
      expect(child.stderr()).toBe('')
      const printed = rows(child.stdout())
      expect(printed.map((row) => row.data)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }])
      for (const row of printed) expect(await consumedBy(row, 'queenctl-tail')).toBe(true)
    } finally {
      await child.kill()
    }
  })

  it('--concurrency N keeps N long-polls parked at the broker while following (built CLI)', async () => {
    const queue = freshQueue()
    const child = startCli(['tail', queue, '--cg', 'fan', '--follow', '--concurrency', '3', '--server', broker.url])
    try {
      await waitFor(async () => (await parkedPops()) === 3)
      await pushPayloads(broker, queue, ['a'], 'p1')
      await pushPayloads(broker, queue, ['b'], 'p2')
      await child.waitFor(/"a"\}\n[\s\S]*"b"\}\n|"b"\}\n[\s\S]*"a"\}\n/, 30_000)
      process.kill(child.pid, 'SIGINT')
      expect(await child.exited(30_000)).toEqual({ code: 0, signal: null })
      expect(
        rows(child.stdout())
          .map((row) => row.data)
          .sort(),
      ).toEqual(['a', 'b'])
    } finally {
      await child.kill()
    }
    await waitFor(async () => (await parkedPops()) === 0)
  })

  it('--concurrency shares --limit: exactly that many messages, none twice, each acked', async () => {
    const queue = freshQueue()
    for (const partition of ['p1', 'p2', 'p3', 'p4']) {
      await pushPayloads(broker, queue, [`${partition}-1`, `${partition}-2`, `${partition}-3`], partition)
    }
    const result = await tail(queue, '--cg', 'shared', '--concurrency', '4', '--limit', '7', '--batch', '2', '--ack')
    expect(result.code, result.stderr).toBe(0)
    const printed = rows(result.stdout)
    expect(printed).toHaveLength(7)
    expect(new Set(printed.map((row) => row.transactionId)).size).toBe(7)
    for (const row of printed) expect(await consumedBy(row, 'shared')).toBe(true)
    // Within a partition the order holds.
    for (const partition of ['p1', 'p2', 'p3', 'p4']) {
      const own = printed.map((row) => String(row.data)).filter((data) => data.startsWith(`${partition}-`))
      expect(own).toEqual([...own].sort())
    }
    // The rest is still there for the group.
    expect(rows((await tail(queue, '--cg', 'shared', '--ack')).stdout)).toHaveLength(5)
  })
})

/** The broker's parked long-poll pops (queen_pop_parked). */
async function parkedPops(): Promise<number> {
  const text = String((await http(broker, 'GET', '/metrics/prometheus')).body)
  return Number(/^queen_pop_parked (\d+)$/m.exec(text)?.[1] ?? NaN)
}

async function waitFor(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}
