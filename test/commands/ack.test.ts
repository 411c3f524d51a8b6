/**
 * `queenctl ack` (docs/cli.md, "Data-plane commands") against a real in-process broker: single acks and `--batch` of
 * pop NDJSON, run in this process with stdout, stderr and the exit code captured, plus `--batch -` on the built CLI's
 * stdin. Each test reads the message's state back from the broker (`GET /api/v1/messages/:p/:t`).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import Ack from '../../src/commands/ack.js'
import Pop from '../../src/commands/pop.js'
import { http, startTestBroker, type TestBroker } from '../support/broker.js'
import { ndjsonFile, pushPayloads, runBuiltCli } from '../support/data-plane.js'
import { runCommand } from '../support/run-command.js'

let broker: TestBroker
let dir: string

beforeAll(async () => {
  broker = await startTestBroker({ label: 'cli_ack' })
  dir = await mkdtemp('/tmp/queenctl-ack-test-')
})
afterAll(async () => {
  await broker.close()
  await rm(dir, { recursive: true, force: true })
})

const ack = (...argv: string[]) => runCommand(Ack, 'ack', ['--server', broker.url, ...argv])

interface Row {
  queue: string
  partitionId: string
  transactionId: string
  leaseId: string
  consumerGroup: string
  retryCount: number
  data: unknown
}

let queues = 0
const freshQueue = () => `ack-${++queues}`

/** Pops with the CLI and returns its NDJSON text and rows. */
async function popRows(queue: string, ...argv: string[]): Promise<{ text: string; rows: Row[] }> {
  const result = await runCommand(Pop, 'pop', ['--server', broker.url, queue, '--no-wait', ...argv])
  expect(result.code, result.stderr).toBe(0)
  const rows = result.stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Row)
  return { text: result.stdout, rows }
}

/** The broker's view of a message: its status, retry count and per-group consumption. */
async function messageState(row: Row): Promise<{
  status: string
  retryCount: number
  errorMessage: string | null
  consumerGroups: { name: string; consumed: boolean }[]
}> {
  const answer = await http(
    broker,
    'GET',
    `/api/v1/messages/${row.partitionId}/${encodeURIComponent(row.transactionId)}`,
  )
  expect(answer.status).toBe(200)
  return answer.body
}

describe('queenctl ack', () => {
  it('acknowledges one popped message with its lease and prints ack ok', async () => {
    const queue = freshQueue()
    await pushPayloads(broker, queue, ['first', 'second'])
    const [row] = (await popRows(queue)).rows
    const result = await ack(
      row!.transactionId,
      '--partition-id',
      row!.partitionId,
      '--lease-id',
      row!.leaseId,
      '-o',
      'table',
    )
    expect(result).toEqual({ code: 0, stdout: 'ack ok\n', stderr: '' })
    expect((await messageState(row!)).status).toBe('completed')
    // The lease had one message: it is released, so the next message is deliverable at once.
    expect((await popRows(queue)).rows.map((next) => next.data)).toEqual(['second'])
  })

  it('prints the broker result item under -o json', async () => {
    const queue = freshQueue()
    await pushPayloads(broker, queue, ['x'])
    const [row] = (await popRows(queue)).rows
    const result = await ack(row!.transactionId, '--partition-id', row!.partitionId, '--json')
    expect(result.code).toBe(0)
    expect(JSON.parse(result.stdout)).toMatchObject({
      transactionId: row!.transactionId,
      success: true,
      error: null,
      queueName: queue,
      partitionName: 'Default',
      dlq: false,
    })
  })

  it('fails a message with --status failed and --error, so it is redelivered', async () => {
    const queue = freshQueue()
    await http(broker, 'POST', '/api/v1/configure', { queue, options: { retryDelay: 0 } })
    await pushPayloads(broker, queue, ['retry me'])
    const [row] = (await popRows(queue)).rows
    const result = await ack(
      row!.transactionId,
      '--partition-id',
      row!.partitionId,
      '--lease-id',
      row!.leaseId,
      '--status',
      'failed',
      '--error',
      'card declined',
      '-o',
      'table',
    )
    expect(result).toEqual({ code: 0, stdout: 'ack ok\n', stderr: '' })
    const [again] = (await popRows(queue)).rows
    expect(again).toMatchObject({ transactionId: row!.transactionId, retryCount: 1, data: 'retry me' })
  })

  it('dead-letters a message with --status dlq, with its error', async () => {
    const queue = freshQueue()
    await pushPayloads(broker, queue, ['poison'])
    const [row] = (await popRows(queue, '--cg', 'billing')).rows
    const result = await ack(
      row!.transactionId,
      '--partition-id',
      row!.partitionId,
      '--cg',
      'billing',
      '--status',
      'dlq',
      '--error',
      'poison message',
      '-o',
      'table',
    )
    expect(result).toEqual({ code: 0, stdout: 'ack ok\n', stderr: '' })
    const dlq = await http(broker, 'GET', `/api/v1/dlq?queue=${queue}`)
    expect(dlq.body.messages).toMatchObject([
      { transactionId: row!.transactionId, consumerGroup: 'billing', errorMessage: 'poison message', data: 'poison' },
    ])
  })

  it('exits 2 with the broker message when the ack fails', async () => {
    const queue = freshQueue()
    await pushPayloads(broker, queue, ['x'])
    const [row] = (await popRows(queue)).rows
    const result = await ack('no-such-message', '--partition-id', row!.partitionId, '-o', 'table')
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: 'queenctl: ack of no-such-message failed: Message not found\n',
    })
  })

  it('exits 1 with the broker validation message unchanged', async () => {
    const result = await ack('tx', '--partition-id', 'not-a-uuid', '-o', 'table')
    expect(result.code).toBe(1)
    expect(result.stdout).toBe('')
    expect(result.stderr).toMatch(/^queenctl: partitionId: /)
  })

  it('acknowledges every line of --batch FILE, pop NDJSON with its groups, and prints ok=N failed=M', async () => {
    const queue = freshQueue()
    await pushPayloads(broker, queue, ['a'], 'p1')
    await pushPayloads(broker, queue, ['b', 'c'], 'p2')
    const popped = await popRows(queue, '--cg', 'workers', '-n', '10', '--max-partitions', '2')
    expect(popped.rows).toHaveLength(3)
    const file = path.join(dir, 'popped.ndjson')
    await writeFile(file, popped.text)
    const result = await ack('--batch', file, '-o', 'table')
    expect(result).toEqual({ code: 0, stdout: 'ok=3 failed=0\n', stderr: '' })
    for (const row of popped.rows) {
      const state = await messageState(row)
      expect(state.consumerGroups).toEqual([expect.objectContaining({ name: 'workers', consumed: true })])
    }
  })

  it('reports the lines whose ack failed, exit 2, and acks the others', async () => {
    const queue = freshQueue()
    await pushPayloads(broker, queue, ['a', 'b'])
    const { rows } = await popRows(queue, '-n', '2')
    const missing = { ...rows[0]!, transactionId: 'gone' }
    const file = await ndjsonFile(
      dir,
      'mixed.ndjson',
      rows.map((row) => JSON.stringify(row)).concat(JSON.stringify(missing)),
    )
    const result = await ack('--batch', file, '-o', 'table')
    expect(result).toEqual({
      code: 2,
      stdout: 'ok=2 failed=1\n',
      stderr: 'warning: line 3 (transaction gone) failed: Message not found\n',
    })
    for (const row of rows) expect((await messageState(row)).status).toBe('completed')
  })

  it('applies --status and --error to every line of --batch unless a line has its own', async () => {
    const queue = freshQueue()
    await pushPayloads(broker, queue, ['a', 'b'])
    const { rows } = await popRows(queue, '-n', '2')
    const file = await ndjsonFile(dir, 'statuses.ndjson', [
      JSON.stringify(rows[0]),
      JSON.stringify({ ...rows[1], status: 'completed' }),
    ])
    const result = await ack('--batch', file, '--status', 'dlq', '--error', 'bad batch', '--json')
    expect(result.code).toBe(0)
    expect(JSON.parse(result.stdout)).toEqual({ ok: 2, failed: 0, failures: [] })
    const dlq = await http(broker, 'GET', `/api/v1/dlq?queue=${queue}`)
    expect(dlq.body.messages.map((entry: { transactionId: string; errorMessage: string }) => entry)).toMatchObject([
      { transactionId: rows[0]!.transactionId, errorMessage: 'bad batch' },
    ])
    expect((await messageState(rows[1]!)).status).toBe('completed')
  })

  it('exits 4 for --batch input without lines', async () => {
    const file = await ndjsonFile(dir, 'empty.ndjson', ['', ''])
    expect(await ack('--batch', file)).toEqual({ code: 4, stdout: '', stderr: '' })
  })

  it('stops at a malformed --batch line with exit 1, naming it, after acking the lines before it', async () => {
    const queue = freshQueue()
    await pushPayloads(broker, queue, ['a'])
    const { rows } = await popRows(queue)
    const file = await ndjsonFile(dir, 'bad.ndjson', [JSON.stringify(rows[0]), '{"transactionId":"x"}', 'nope'])
    const result = await ack('--batch', file, '-o', 'table')
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr:
        `queenctl: ${file} line 2 has no partitionId; the lines before it were acked (ok=1 failed=0)\n` +
        'hint: each line needs the transactionId and partitionId of a popped message\n',
    })
    expect((await messageState(rows[0]!)).status).toBe('completed')
    const notJson = await ndjsonFile(dir, 'not-json.ndjson', ['{'])
    const second = await ack('--batch', notJson)
    expect(second.code).toBe(1)
    expect(second.stderr).toMatch(/^queenctl: \S+ line 1 is not valid JSON \(/)
  })

  it('exits 1 on bad usage and a missing --batch file', async () => {
    const none = await ack('tx-only')
    expect(none).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'queenctl: ack needs a transaction id and --partition-id, or --batch FILE\n' +
        'hint: both are in every line pop and tail print (transactionId, partitionId)\n',
    })
    const both = await ack('tx', '--batch', 'x.ndjson')
    expect(both.code).toBe(1)
    expect(both.stderr).toMatch(/^queenctl: a transaction id argument and --batch exclude each other\n/)
    const status = await ack('tx', '--partition-id', 'p', '--status', 'done')
    expect(status.code).toBe(1)
    expect(status.stderr).toMatch(/^queenctl: Expected --status=done to be one of: completed, failed, dlq, retry/)
    const missing = path.join(dir, 'missing.ndjson')
    expect(await ack('--batch', missing)).toEqual({
      code: 1,
      stdout: '',
      stderr: `queenctl: file ${missing} does not exist\nhint: pass an NDJSON file to -f, or - for stdin\n`,
    })
    const unknown = await ack('tx', '--bogus')
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toMatch(/^queenctl: Nonexistent flag: --bogus\n/)
  })

  it('reads --batch - from stdin (built CLI)', async () => {
    const queue = freshQueue()
    await pushPayloads(broker, queue, ['piped'])
    const popped = await popRows(queue)
    const file = path.join(dir, 'stdin.ndjson')
    await writeFile(file, popped.text)
    const run = await runBuiltCli(['ack', '--batch', '-', '--server', broker.url, '-o', 'table'], { stdinFile: file })
    expect(run).toMatchObject({ code: 0, stdout: 'ok=1 failed=0\n', stderr: '' })
    expect((await messageState(popped.rows[0]!)).status).toBe('completed')
  })
})
