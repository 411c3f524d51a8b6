/**
 * `queenctl pop` (docs/cli.md, "Data-plane commands") against a real in-process broker, run in this process with
 * stdout, stderr and the exit code captured. Messages are pushed over the broker's push route; what the pop left leased
 * or settled is read back from the broker.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import Pop from '../../src/commands/pop.js'
import { http, startTestBroker, type TestBroker } from '../support/broker.js'
import { drainQueue, pushPayloads } from '../support/data-plane.js'
import { runCommand } from '../support/run-command.js'

let broker: TestBroker

beforeAll(async () => {
  broker = await startTestBroker({ label: 'cli_pop' })
})
afterAll(async () => {
  await broker.close()
})

const pop = (...argv: string[]) => runCommand(Pop, 'pop', ['--server', broker.url, ...argv])

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
let queues = 0
const freshQueue = () => `pop-${++queues}`

const lines = (stdout: string) =>
  stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>)

describe('queenctl pop', () => {
  it('prints one NDJSON line per message with the fields ack needs, and leaves it leased', async () => {
    const queue = freshQueue()
    const [pushed] = await pushPayloads(broker, queue, [{ order: 1 }, { order: 2 }])
    const result = await pop(queue)
    expect(result.code, result.stderr).toBe(0)
    expect(result.stderr).toBe('')
    const [row, ...rest] = lines(result.stdout)
    expect(rest).toEqual([])
    expect(Object.keys(row!)).toEqual([
      'queue',
      'partition',
      'partitionId',
      'transactionId',
      'leaseId',
      'consumerGroup',
      'createdAt',
      'retryCount',
      'traceId',
      'producerSub',
      'data',
    ])
    expect(row).toMatchObject({
      queue,
      partition: 'Default',
      partitionId: expect.stringMatching(UUID),
      transactionId: pushed!.transaction_id,
      leaseId: expect.stringMatching(UUID),
      consumerGroup: '__QUEUE_MODE__',
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/),
      retryCount: 0,
      traceId: null,
      producerSub: null,
      data: { order: 1 },
    })
    // The partition is leased to that pop: queue mode has nothing else to hand out meanwhile.
    expect(await pop(queue, '--no-wait')).toEqual({ code: 4, stdout: '', stderr: '' })
  })

  it('pops --limit messages in requests of --batch, each request leasing partitions of its own', async () => {
    const queue = freshQueue()
    await pushPayloads(broker, queue, [1, 2], 'a')
    await pushPayloads(broker, queue, [3, 4], 'b')
    const result = await pop(queue, '--limit', '3', '--batch', '2', '--debug')
    expect(result.code).toBe(0)
    expect(result.stderr.match(/^http: GET \S+\/api\/v1\/pop\/queue\/\S+ 200 \d+ms$/gm)).toHaveLength(2)
    const rows = lines(result.stdout)
    expect(rows).toHaveLength(3)
    const [first, second, third] = rows as { partition: string; leaseId: string; data: number }[]
    expect(second!.partition).toBe(first!.partition)
    expect(second!.leaseId).toBe(first!.leaseId)
    expect(third!.partition).not.toBe(first!.partition)
    expect(third!.leaseId).not.toBe(first!.leaseId)
    expect([first!.data, second!.data, third!.data]).toEqual(first!.partition === 'a' ? [1, 2, 3] : [3, 4, 1])
  })

  it('prints one JSON array with -o json and with --json', async () => {
    const queue = freshQueue()
    await pushPayloads(broker, queue, ['a', 'b', 'c', 'd'])
    const first = await pop(queue, '-n', '2', '-o', 'json')
    expect(first.code).toBe(0)
    expect(first.stdout.startsWith('[\n  {')).toBe(true)
    expect((JSON.parse(first.stdout) as { data: unknown }[]).map((row) => row.data)).toEqual(['a', 'b'])
    const other = freshQueue()
    await pushPayloads(broker, other, ['e'])
    const second = await pop(other, '--json')
    expect(second.code).toBe(0)
    expect((JSON.parse(second.stdout) as { data: unknown }[]).map((row) => row.data)).toEqual(['e'])
  })

  it('prints NDJSON for -o table too: pop always streams lines', async () => {
    const queue = freshQueue()
    await pushPayloads(broker, queue, [{ n: 1 }])
    const result = await pop(queue, '-o', 'table')
    expect(result.code).toBe(0)
    expect(result.stdout.split('\n')).toHaveLength(2)
    expect(lines(result.stdout)[0]!.data).toEqual({ n: 1 })
  })

  it('exits 4 and prints nothing when the queue is empty, with and without a long poll', async () => {
    const queue = freshQueue()
    await pushPayloads(broker, queue, [])
    expect(await pop(queue, '--no-wait')).toEqual({ code: 4, stdout: '', stderr: '' })
    expect(await pop(queue, '--wait-timeout', '300ms')).toEqual({ code: 4, stdout: '', stderr: '' })
    expect(await pop('never-pushed', '--no-wait', '-o', 'json')).toEqual({ code: 4, stdout: '', stderr: '' })
  })

  it('takes --timeout as the long-poll time, as the Go queenctl does, and adds it to the HTTP timeout', async () => {
    const started = Date.now()
    const result = await pop(freshQueue(), '--timeout', '1500ms')
    expect(Date.now() - started).toBeGreaterThanOrEqual(1400)
    expect(result).toEqual({ code: 4, stdout: '', stderr: '' })
  })

  it('returns a message pushed while it long-polls', async () => {
    const queue = freshQueue()
    const popping = pop(queue, '--wait-timeout', '20s')
    await new Promise((resolve) => setTimeout(resolve, 300))
    await pushPayloads(broker, queue, [{ late: true }])
    const result = await popping
    expect(result.code).toBe(0)
    expect(lines(result.stdout).map((row) => row.data)).toEqual([{ late: true }])
  })

  it('pops one partition with --partition, and exits 1 for a partition that does not exist', async () => {
    const queue = freshQueue()
    await pushPayloads(broker, queue, ['default'])
    await pushPayloads(broker, queue, ['eu'], 'eu')
    const result = await pop(queue, '--partition', 'eu', '-n', '5', '--no-wait')
    expect(lines(result.stdout).map((row) => [row.partition, row.data])).toEqual([['eu', 'eu']])
    // The partition is now leased by this pop itself: no note about another consumer.
    expect(result.stderr).toBe('')
    const held = await pop(queue, '--partition', 'eu', '--no-wait')
    expect(held).toEqual({
      code: 4,
      stdout: '',
      stderr: 'partition eu is leased by another consumer of this group\n',
    })
    const missing = await pop(queue, '--partition', 'mars', '--no-wait')
    expect(missing).toEqual({
      code: 1,
      stdout: '',
      stderr: `queenctl: partition mars of queue ${queue} does not exist\nhint: queenctl partition list ${queue} lists its partitions\n`,
    })
  })

  it('claims several partitions with --max-partitions', async () => {
    const queue = freshQueue()
    for (const partition of ['a', 'b', 'c']) await pushPayloads(broker, queue, [partition], partition)
    const result = await pop(queue, '-n', '10', '--max-partitions', '3', '--no-wait')
    expect(
      lines(result.stdout)
        .map((row) => row.partition)
        .sort(),
    ).toEqual(['a', 'b', 'c'])
  })

  it('settles the messages at delivery with --auto-ack', async () => {
    const queue = freshQueue()
    await pushPayloads(broker, queue, [1, 2])
    const result = await pop(queue, '--auto-ack')
    expect(lines(result.stdout).map((row) => [row.data, row.leaseId])).toEqual([[1, '']])
    // Nothing is leased: the next message is deliverable at once, the first one is gone.
    expect((await drainQueue(broker, queue)).map((message) => message.data)).toEqual([2])
  })

  it('pops as a consumer group with its own cursor, starting at new messages with --from-mode new', async () => {
    const queue = freshQueue()
    await pushPayloads(broker, queue, ['old'])
    expect((await pop(queue, '--cg', 'fresh', '--from-mode', 'new', '--no-wait')).code).toBe(4)
    await pushPayloads(broker, queue, ['new'])
    const fresh = await pop(queue, '--cg', 'fresh', '--no-wait')
    expect(lines(fresh.stdout).map((row) => [row.consumerGroup, row.data])).toEqual([['fresh', 'new']])
    const all = await pop(queue, '--cg', 'all', '--from-mode', 'all', '-n', '5', '--no-wait')
    expect(lines(all.stdout).map((row) => row.data)).toEqual(['old', 'new'])
    // Queue mode is untouched by the groups.
    expect((await drainQueue(broker, queue)).map((message) => message.data)).toEqual(['old', 'new'])
  })

  it('starts a new group at --since', async () => {
    const queue = freshQueue()
    await pushPayloads(broker, queue, ['before'])
    expect((await pop(queue, '--cg', 'later', '--since', 'now', '--no-wait')).code).toBe(4)
    const early = await pop(queue, '--cg', 'early', '--since', '1h ago', '--no-wait')
    expect(lines(early.stdout).map((row) => row.data)).toEqual(['before'])
  })

  it('pops from the queues of a namespace and task', async () => {
    const queue = freshQueue()
    const configured = await http(broker, 'POST', '/api/v1/configure', {
      queue,
      namespace: 'billing',
      task: 'invoices',
    })
    expect(configured.status).toBe(200)
    await pushPayloads(broker, queue, [{ invoice: 7 }])
    const result = await pop('--namespace', 'billing', '--task', 'invoices', '--no-wait')
    expect(result.code, result.stderr).toBe(0)
    expect(lines(result.stdout).map((row) => [row.queue, row.data])).toEqual([[queue, { invoice: 7 }]])
    expect((await pop('--namespace', 'nobody', '--no-wait')).code).toBe(4)
  })

  it('exits 1 on bad usage, before anything is sent', async () => {
    expect(await pop()).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'queenctl: pop needs a queue argument, or --namespace/--task for a queueless pop\nhint: queenctl pop QUEUE, or queenctl pop --namespace NS\n',
    })
    const both = await pop('q', '--namespace', 'billing')
    expect(both.code).toBe(1)
    expect(both.stderr).toMatch(/^queenctl: a queue argument and --namespace\/--task exclude each other\n/)
    const since = await pop('q', '--cg', 'g', '--since', 'yesterday-ish')
    expect(since.code).toBe(1)
    expect(since.stderr).toMatch(/^queenctl: --since: "yesterday-ish" is not a time\nhint: use now, beginning/)
    const wait = await pop('q', '--timeout', 'abc')
    expect(wait.code).toBe(1)
    expect(wait.stderr).toMatch(/^queenctl: --timeout: abc is not a duration/)
    const long = await pop('q', '--wait-timeout', '11m')
    expect(long.code).toBe(1)
    expect(long.stderr).toMatch(/^queenctl: --timeout: at most 10m/)
    const mode = await pop('q', '--from-mode', 'oldest')
    expect(mode.code).toBe(1)
    expect(mode.stderr).toMatch(/^queenctl: Expected --from-mode=oldest to be one of: all, new/)
    const unknown = await pop('q', '--bogus')
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toMatch(/^queenctl: Nonexistent flag: --bogus\n/)
  })

  it('shows the broker validation message unchanged, exit 1', async () => {
    const result = await pop('bad name', '--no-wait')
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/^queenctl: queue: /)
  })
})
