/**
 * `queenctl messages` (docs/http-api.md, "Messages, DLQ and traces") against a real in-process broker, in this process
 * with stdout, stderr and the exit code captured; mutations are checked against the broker's own answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import MessagesDelete from '../../src/commands/messages/delete.js'
import MessagesDlq from '../../src/commands/messages/dlq.js'
import MessagesGet from '../../src/commands/messages/get.js'
import MessagesList from '../../src/commands/messages/list.js'
import MessagesRetry from '../../src/commands/messages/retry.js'
import MessagesTraces from '../../src/commands/messages/traces.js'
import { http, startTestBroker, type TestBroker } from '../support/broker.js'
import { ack, pop, push } from '../support/queen.js'
import { runCommand } from '../support/run-command.js'

let broker: TestBroker
let partitionId: string

beforeAll(async () => {
  broker = await startTestBroker({ label: 'cli_messages' })
  const results = await push(broker, [
    { queue: 'msg-orders', partition: 'eu', transactionId: 'ord-1', payload: { amount: 10 } },
    { queue: 'msg-orders', partition: 'eu', transactionId: 'ord-2', payload: { amount: 20 } },
  ])
  expect(results.map((item) => item.status)).toEqual(['queued', 'queued'])
  const answer = await http(broker, 'GET', '/api/v1/messages?queue=msg-orders')
  partitionId = answer.body.messages[0].partitionId
})
afterAll(async () => {
  await broker.close()
})

const server = () => ['--server', broker.url]
const cmd = {
  list: (...argv: string[]) => runCommand(MessagesList, 'messages:list', [...server(), ...argv]),
  get: (...argv: string[]) => runCommand(MessagesGet, 'messages:get', [...server(), ...argv]),
  traces: (...argv: string[]) => runCommand(MessagesTraces, 'messages:traces', [...server(), ...argv]),
  delete: (...argv: string[]) => runCommand(MessagesDelete, 'messages:delete', [...server(), ...argv]),
  retry: (...argv: string[]) => runCommand(MessagesRetry, 'messages:retry', [...server(), ...argv]),
  dlq: (...argv: string[]) => runCommand(MessagesDlq, 'messages:dlq', [...server(), ...argv]),
}

describe('queenctl messages list and get', () => {
  it('lists the messages of a queue newest first; wide adds the partition id', async () => {
    const table = await cmd.list('--queue', 'msg-orders', '-o', 'table')
    expect(table.code, table.stderr).toBe(0)
    const lines = table.stdout.trimEnd().split('\n')
    expect(lines[0]).toBe('TX     QUEUE       PARTITION  STATUS   CREATED')
    expect(lines.slice(1).map((line) => line.split(/\s{2,}/).slice(0, 4))).toEqual([
      ['ord-2', 'msg-orders', 'eu', 'pending'],
      ['ord-1', 'msg-orders', 'eu', 'pending'],
    ])
    const wide = await cmd.list('--queue', 'msg-orders', '--status', 'pending', '-o', 'wide')
    expect(wide.stdout.split('\n')[1]).toContain(partitionId)
    const json = JSON.parse((await cmd.list('--queue', 'msg-orders', '-o', 'json')).stdout)
    expect(json.map((row: { transactionId: string }) => row.transactionId)).toEqual(['ord-2', 'ord-1'])
  })

  it('pages a --limit above the broker cap of 1,000 (the Go queenctl usage messages list --limit 10000)', async () => {
    const items = Array.from({ length: 1205 }, (_, index) => ({ queue: 'msg-many', payload: { index } }))
    for (let start = 0; start < items.length; start += 500) await push(broker, items.slice(start, start + 500))
    const result = await cmd.list('--queue', 'msg-many', '--limit', '10000', '-o', 'json')
    expect(result.code, result.stderr).toBe(0)
    const rows = JSON.parse(result.stdout) as { transactionId: string }[]
    expect(rows).toHaveLength(1205)
    expect(new Set(rows.map((row) => row.transactionId)).size).toBe(1205)
    const capped = JSON.parse((await cmd.list('--queue', 'msg-many', '--limit', '1100', '-o', 'json')).stdout)
    expect(capped).toHaveLength(1100)
  })

  it('refuses an unknown status naming the flag', async () => {
    const result = await cmd.list('--status', 'lost', '-o', 'table')
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/^queenctl: Expected --status=lost to be one of: pending, processing/)
  })

  it('gets one message with its payload, and exits 1 with the broker message when it does not exist', async () => {
    const yaml = await cmd.get(partitionId, 'ord-1', '-o', 'table')
    expect(yaml.code, yaml.stderr).toBe(0)
    expect(yaml.stdout).toContain('transactionId: ord-1\n')
    expect(yaml.stdout).toContain('status: pending\n')
    expect(yaml.stdout).toContain('payload:\n  amount: 10\n')
    const json = JSON.parse((await cmd.get(partitionId, 'ord-1', '-o', 'json')).stdout)
    expect(json).toMatchObject({
      transactionId: 'ord-1',
      queue: 'msg-orders',
      partition: 'eu',
      payload: { amount: 10 },
    })
    const missing = await cmd.get(partitionId, 'nope', '-o', 'table')
    expect(missing).toEqual({ code: 1, stdout: '', stderr: 'queenctl: Message not found\n' })
  })
})

describe('queenctl messages traces', () => {
  it('lists the trace events recorded on a message', async () => {
    const recorded = await http(broker, 'POST', '/api/v1/traces', {
      partitionId,
      transactionId: 'ord-1',
      data: { step: 'charged' },
      eventType: 'processing',
      traceNames: ['order-flow'],
      workerId: 'worker-a',
    })
    expect(recorded.body.success).toBe(true)
    const table = await cmd.traces(partitionId, 'ord-1', '-o', 'table')
    expect(table.code, table.stderr).toBe(0)
    const [header, row] = table.stdout.trimEnd().split('\n')
    expect(header).toMatch(/^CREATED\s+EVENT\s+GROUP\s+WORKER\s+NAMES\s+DATA$/)
    expect(row).toMatch(
      /^(just now|\d+ seconds? ago)\s+processing\s+\S+\s+worker-a\s+order-flow\s+\{"step":"charged"\}$/,
    )
    const json = JSON.parse((await cmd.traces(partitionId, 'ord-1', '-o', 'json')).stdout)
    expect(json).toMatchObject([{ event_type: 'processing', data: { step: 'charged' }, trace_names: ['order-flow'] }])
  })
})

describe('queenctl messages dlq and retry', () => {
  it('moves a message to the DLQ for a group (needing --yes), then retry delivers it to that group again', async () => {
    const refused = await cmd.dlq(partitionId, 'ord-2', '--cg', 'billing', '-o', 'table')
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('without --yes')
    const dry = await cmd.dlq(partitionId, 'ord-2', '--cg', 'billing', '--dry-run', '-o', 'table')
    expect(dry).toEqual({
      code: 0,
      stdout: '',
      stderr: 'would move message ord-2 of msg-orders/eu to the DLQ for billing\n',
    })
    const moved = await cmd.dlq(
      partitionId,
      'ord-2',
      '--cg',
      'billing',
      '--error',
      'bad address',
      '--yes',
      '-o',
      'table',
    )
    expect(moved).toEqual({ code: 0, stdout: '', stderr: 'moved message ord-2 to the DLQ for billing\n' })
    const dlq = await http(broker, 'GET', '/api/v1/dlq?queue=msg-orders')
    expect(dlq.body.messages).toMatchObject([
      { transactionId: 'ord-2', consumerGroup: 'billing', errorMessage: 'bad address' },
    ])

    const retried = await cmd.retry(partitionId, 'ord-2', '--cg', 'billing', '-o', 'json')
    expect(retried.code, retried.stderr).toBe(0)
    expect(JSON.parse(retried.stdout)).toMatchObject({ success: true, consumerGroups: ['billing'], requeued: 1 })
    expect((await http(broker, 'GET', '/api/v1/dlq?queue=msg-orders')).body.messages).toEqual([])
    // billing, which never consumed either, is delivered both again: ord-2 is no longer settled for it.
    const popped = await pop(broker, 'msg-orders', { consumerGroup: 'billing', batch: 10 })
    expect(popped.messages.map((message: { transactionId: string }) => message.transactionId)).toEqual([
      'ord-1',
      'ord-2',
    ])
    for (const message of popped.messages) await ack(broker, message)

    const again = await cmd.retry(partitionId, 'ord-2', '-o', 'table')
    expect(again).toEqual({ code: 1, stdout: '', stderr: 'queenctl: Message is not in the dead-letter queue\n' })
  })

  it('refuses to dead-letter a message the group already consumed (exit 1, the broker message)', async () => {
    const result = await cmd.dlq(partitionId, 'ord-2', '--cg', 'billing', '--yes', '-o', 'table')
    expect(result).toEqual({ code: 1, stdout: '', stderr: "queenctl: Message already consumed by group 'billing'\n" })
  })
})

describe('queenctl messages delete', () => {
  it('needs --yes, shows the message under --dry-run, deletes it, and reports a message already gone', async () => {
    const refused = await cmd.delete(partitionId, 'ord-1', '-o', 'table')
    expect(refused.code).toBe(1)
    expect(refused.stderr).toBe(
      'queenctl: refusing to delete message ord-1 without --yes (stdin is not a terminal)\n' +
        `hint: run queenctl messages delete ${partitionId} ord-1 --yes\n`,
    )
    const dry = await cmd.delete(partitionId, 'ord-1', '--dry-run', '-o', 'table')
    const status = (await http(broker, 'GET', `/api/v1/messages/${partitionId}/ord-1`)).body.status
    expect(dry).toEqual({ code: 0, stdout: '', stderr: `would delete message ord-1 of msg-orders/eu (${status})\n` })
    const deleted = await cmd.delete(partitionId, 'ord-1', '--yes', '-o', 'table')
    expect(deleted).toEqual({ code: 0, stdout: '', stderr: 'deleted message ord-1\n' })
    expect((await http(broker, 'GET', `/api/v1/messages/${partitionId}/ord-1`)).status).toBe(404)
    expect(await cmd.delete(partitionId, 'ord-1', '--yes', '-o', 'table')).toEqual({
      code: 0,
      stdout: '',
      stderr: 'message ord-1 did not exist\n',
    })
    expect(await cmd.delete(partitionId, 'ord-1', '--dry-run', '-o', 'table')).toEqual({
      code: 4,
      stdout: '',
      stderr: 'message ord-1 does not exist: nothing to delete\n',
    })
  })
})
