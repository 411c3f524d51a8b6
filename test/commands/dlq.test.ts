/**
 * `queenctl dlq` (docs/cli.md, "DLQ commands") against a real in-process broker: messages reach the DLQ the way
 * consumers put them there (a queue with retryLimit 0, a pop by a group, a `failed` ack), then are listed, described,
 * requeued (and popped again by the group with their transaction ids) and drained.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import DlqDescribe from '../../src/commands/dlq/describe.js'
import DlqDrain from '../../src/commands/dlq/drain.js'
import DlqList from '../../src/commands/dlq/list.js'
import DlqRequeue from '../../src/commands/dlq/requeue.js'
import { http, startTestBroker, type TestBroker } from '../support/broker.js'
import { ack, configure, pop, push } from '../support/queen.js'
import { runCommand } from '../support/run-command.js'

let broker: TestBroker

beforeAll(async () => {
  broker = await startTestBroker({ label: 'cli_dlq' })
})
afterAll(async () => {
  await broker.close()
})

const list = (...argv: string[]) => runCommand(DlqList, 'dlq:list', ['--server', broker.url, ...argv])
const requeue = (...argv: string[]) => runCommand(DlqRequeue, 'dlq:requeue', ['--server', broker.url, ...argv])
const drain = (...argv: string[]) => runCommand(DlqDrain, 'dlq:drain', ['--server', broker.url, ...argv])
const describeDlq = (...argv: string[]) => runCommand(DlqDescribe, 'dlq:describe', ['--server', broker.url, ...argv])

/**
 * Dead-letters `transactionIds` of `queue` for `group`: the queue gives up on the first failure
 * (retryLimit 0) and keeps DLQ copies; the group pops them and acks them failed.
 */
async function deadLetter(queue: string, transactionIds: string[], group = 'billing'): Promise<string> {
  await configure(broker, queue, { retryLimit: 0, deadLetterQueue: true })
  await push(
    broker,
    transactionIds.map((transactionId, index) => ({ queue, partition: 'p1', transactionId, payload: { n: index } })),
  )
  const failed = await failAll(queue, group, transactionIds.length)
  expect(failed.sort()).toEqual([...transactionIds].sort())
  return partitionOf(queue)
}

/** `group` pops `count` messages of `queue` and acks each failed; returns their transaction ids. */
async function failAll(queue: string, group: string, count: number): Promise<string[]> {
  const popped = await pop(broker, queue, { consumerGroup: group, batch: count })
  for (const message of popped.messages) {
    const result = await ack(broker, message, { status: 'failed', error: `card declined for ${message.transactionId}` })
    expect(result.dlq, JSON.stringify(result)).toBe(true)
  }
  return popped.messages.map((message: { transactionId: string }) => message.transactionId)
}

/** The id of partition p1 of a queue. */
async function partitionOf(queue: string): Promise<string> {
  const answer = await http(broker, 'GET', `/api/v1/dlq?queue=${queue}&limit=1`)
  return answer.body.messages[0].partitionId
}

/** The broker's DLQ entries of a queue, as (transaction id, group). */
async function dlqOf(queue: string): Promise<string[]> {
  const answer = await http(broker, 'GET', `/api/v1/dlq?queue=${queue}`)
  return answer.body.messages.map(
    (row: { transactionId: string; consumerGroup: string }) => `${row.transactionId}/${row.consumerGroup}`,
  )
}

describe('queenctl dlq list', () => {
  it('lists the dead letters of a queue, newest failure first, with wide columns and JSON rows', async () => {
    const partitionId = await deadLetter('dlq-list', ['order-1', 'order-2'])
    const table = await list('--queue', 'dlq-list', '-o', 'table')
    expect(table).toEqual({
      code: 0,
      stderr: '',
      stdout:
        'TX       QUEUE     PARTITION  GROUP    RETRIES  ERROR\n' +
        'order-2  dlq-list  p1         billing  1        card declined for order-2\n' +
        'order-1  dlq-list  p1         billing  1        card declined for order-1\n',
    })
    const wide = await list('--queue', 'dlq-list', '--cg', 'billing', '-o', 'wide')
    expect(wide.stdout.split('\n')[0]).toMatch(/ERROR\s+FAILED AT\s+PARTITION ID$/)
    expect(wide.stdout.split('\n')[1]).toMatch(new RegExp(`(just now|seconds? ago)\\s+${partitionId}$`))
    const json = await list('--queue', 'dlq-list', '-o', 'json')
    const rows = JSON.parse(json.stdout)
    expect(rows.map((row: { transactionId: string; data: unknown }) => [row.transactionId, row.data])).toEqual([
      ['order-2', { n: 1 }],
      ['order-1', { n: 0 }],
    ])
  })

  it('pages with --limit and --offset and says where the next page starts', async () => {
    await deadLetter('dlq-pages', ['page-1', 'page-2', 'page-3'])
    const first = await list('--queue', 'dlq-pages', '--limit', '2', '-o', 'table', '--no-headers')
    expect(first.stdout.split('\n').filter(Boolean)).toHaveLength(2)
    expect(first.stderr).toBe('showing 1-2 of 3; the next page: --offset 2\n')
    const second = await list('--queue', 'dlq-pages', '--limit', '2', '--offset', '2', '-o', 'table', '--no-headers')
    expect(second).toMatchObject({ code: 0, stderr: '' })
    expect(second.stdout.split('\n').filter(Boolean)).toHaveLength(1)
  })

  it('prints nothing but the header for a filter matching nothing, and refuses a bad time', async () => {
    const empty = await list('--queue', 'dlq-list', '--cg', 'nobody', '-o', 'table')
    expect(empty).toEqual({ code: 0, stdout: 'TX  QUEUE  PARTITION  GROUP  RETRIES  ERROR\n', stderr: '' })
    const bad = await list('--from', 'yesterday-ish', '-o', 'table')
    expect(bad.code).toBe(1)
    expect(bad.stderr.split('\n')[0]).toBe('queenctl: --from: "yesterday-ish" is not a time')
  })
})

describe('queenctl dlq describe', () => {
  it('shows the entries of one message with its payload, and exit 1 for a message not in the DLQ', async () => {
    const partitionId = await deadLetter('dlq-describe', ['inv-7'])
    const result = await describeDlq(partitionId, 'inv-7', '-o', 'json')
    expect(result.code, result.stderr).toBe(0)
    const detail = JSON.parse(result.stdout)
    expect(detail).toMatchObject({
      transactionId: 'inv-7',
      partitionId,
      queue: 'dlq-describe',
      partition: 'p1',
      data: { n: 0 },
      deadLetters: [{ consumerGroup: 'billing', error: 'card declined for inv-7', retries: 1 }],
    })
    const missing = await describeDlq(partitionId, 'inv-8', '-o', 'table')
    expect(missing.code).toBe(1)
    expect(missing.stderr.split('\n')[0]).toBe(
      `queenctl: message inv-8 of partition ${partitionId} is not in the dead-letter queue`,
    )
  })
})

describe('queenctl dlq requeue', () => {
  it('refuses without --yes when stdin is not a terminal, naming --yes, and changes nothing', async () => {
    await deadLetter('dlq-refuse', ['r-1'])
    const result = await requeue('--queue', 'dlq-refuse', '-o', 'table')
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'queenctl: refusing to requeue dead-lettered messages without --yes (stdin is not a terminal)\n' +
        'hint: run queenctl dlq requeue --queue "dlq-refuse" --yes\n',
    })
    expect(await dlqOf('dlq-refuse')).toEqual(['r-1/billing'])
  })

  it('--dry-run lists what would be requeued and changes nothing', async () => {
    await deadLetter('dlq-dry', ['d-1'])
    const result = await requeue('--queue', 'dlq-dry', '--dry-run', '-o', 'table')
    expect(result).toEqual({
      code: 0,
      stderr: 'would requeue 1 dead-lettered message(s)\n',
      stdout:
        'TX   QUEUE    PARTITION  GROUP    RETRIES  ERROR\n' +
        'd-1  dlq-dry  p1         billing  1        card declined for d-1\n',
    })
    expect(await dlqOf('dlq-dry')).toEqual(['d-1/billing'])
  })

  it('requeues every matching row for its group: the group pops them again with their transaction ids', async () => {
    await deadLetter('dlq-requeue', ['q-1', 'q-2'])
    // A second group gave up on them too; the --cg filter leaves its entries alone.
    expect((await failAll('dlq-requeue', 'audit', 2)).sort()).toEqual(['q-1', 'q-2'])
    const result = await requeue('--queue', 'dlq-requeue', '--cg', 'billing', '--yes', '-o', 'table')
    expect(result).toEqual({ code: 0, stdout: 'requeued=2 errors=0\n', stderr: '' })
    expect((await dlqOf('dlq-requeue')).sort()).toEqual(['q-1/audit', 'q-2/audit'])
    const again = await pop(broker, 'dlq-requeue', { consumerGroup: 'billing', batch: 10 })
    expect(again.messages.map((message: { transactionId: string }) => message.transactionId).sort()).toEqual([
      'q-1',
      'q-2',
    ])
  })

  it('exits 4 printing nothing when no dead letter matches', async () => {
    const result = await requeue('--queue', 'dlq-requeue', '--cg', 'nobody', '--yes', '-o', 'table')
    expect(result).toEqual({ code: 4, stdout: '', stderr: '' })
  })

  it('prints the counts as JSON with -o json', async () => {
    await deadLetter('dlq-json', ['j-1'])
    const result = await requeue('--queue', 'dlq-json', '--yes', '-o', 'json')
    expect(result.code, result.stderr).toBe(0)
    expect(JSON.parse(result.stdout)).toEqual({ requeued: 1, errors: 0, failures: [] })
  })
})

describe('queenctl dlq drain', () => {
  it('deletes each matching message once and prints processed=N errors=M, the Go line', async () => {
    const partitionId = await deadLetter('dlq-drain', ['x-1', 'x-2'])
    const refused = await drain('--queue', 'dlq-drain', '-o', 'table')
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('without --yes')
    const result = await drain('--queue', 'dlq-drain', '--yes', '-o', 'table')
    expect(result).toEqual({ code: 0, stdout: 'processed=2 errors=0\n', stderr: '' })
    expect(await dlqOf('dlq-drain')).toEqual([])
    const gone = await http(broker, 'GET', `/api/v1/messages/${partitionId}/x-1`)
    expect(gone.status).toBe(404)
    expect(await drain('--queue', 'dlq-drain', '--yes', '-o', 'table')).toEqual({ code: 4, stdout: '', stderr: '' })
  })
})
