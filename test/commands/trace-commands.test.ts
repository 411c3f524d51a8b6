/**
 * `queenctl traces names | by-name | by-message` (docs/http-api.md, "Read traces") against a real in-process broker, on
 * trace events recorded through POST /api/v1/traces as consumers record them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import TracesByMessage from '../../src/commands/traces/by-message.js'
import TracesByName from '../../src/commands/traces/by-name.js'
import TracesNames from '../../src/commands/traces/names.js'
import { http, startTestBroker, type TestBroker } from '../support/broker.js'
import { push } from '../support/queen.js'
import { runCommand } from '../support/run-command.js'

let broker: TestBroker
let partitionId: string

async function trace(transactionId: string, traceNames: string[], data: object): Promise<void> {
  const answer = await http(broker, 'POST', '/api/v1/traces', { partitionId, transactionId, traceNames, data })
  expect(answer.body.success, JSON.stringify(answer.body)).toBe(true)
}

beforeAll(async () => {
  broker = await startTestBroker({ label: 'cli_trace_commands' })
  await push(broker, [
    { queue: 'tr-orders', partition: 'eu', transactionId: 'tr-1', payload: { amount: 5 } },
    { queue: 'tr-orders', partition: 'eu', transactionId: 'tr-2', payload: { amount: 6 } },
  ])
  partitionId = (await http(broker, 'GET', '/api/v1/messages?queue=tr-orders')).body.messages[0].partitionId
  await trace('tr-1', ['checkout'], { step: 1 })
  await trace('tr-1', ['checkout', 'fraud'], { step: 2 })
  await trace('tr-2', ['checkout'], { step: 1 })
})
afterAll(async () => {
  await broker.close()
})

const run = (command: Parameters<typeof runCommand>[0], id: string, ...argv: string[]) =>
  runCommand(command, id, ['--server', broker.url, ...argv])

describe('queenctl traces names', () => {
  it('lists each name with its event and message counts', async () => {
    const json = JSON.parse((await run(TracesNames, 'traces:names', '-o', 'json')).stdout)
    const counts = Object.fromEntries(
      json.map((row: { trace_name: string; trace_count: number; message_count: number }) => [
        row.trace_name,
        [row.trace_count, row.message_count],
      ]),
    )
    expect(counts).toEqual({ checkout: [3, 2], fraud: [1, 1] })
    const table = await run(TracesNames, 'traces:names', '-o', 'table', '--limit', '1')
    expect(table.stdout.split('\n')[0]).toMatch(/^NAME\s+EVENTS\s+MESSAGES\s+LAST SEEN$/)
    expect(table.stdout.trimEnd().split('\n')).toHaveLength(2)
    expect(table.stderr).toBe('showing 1-1 of 2; the next page: --offset 1\n')
  })
})

describe('queenctl traces by-name', () => {
  it('lists the events of a name with their message', async () => {
    const table = await run(TracesByName, 'traces:by-name', 'fraud', '-o', 'table')
    expect(table.code, table.stderr).toBe(0)
    const [header, row, extra] = table.stdout.trimEnd().split('\n')
    expect(header).toMatch(/^CREATED\s+TX\s+QUEUE\s+PARTITION\s+EVENT\s+GROUP\s+DATA$/)
    expect(row).toMatch(/\s+tr-1\s+tr-orders\s+eu\s+info\s+\S+\s+\{"step":2\}$/)
    expect(extra).toBeUndefined()
    const json = JSON.parse((await run(TracesByName, 'traces:by-name', 'checkout', '-o', 'json')).stdout)
    expect(json).toHaveLength(3)
    expect(json.find((event: { transaction_id: string }) => event.transaction_id === 'tr-2').message_payload).toEqual({
      amount: 6,
    })
  })
})

describe('queenctl traces by-message', () => {
  it('lists the events of one message oldest first, and refuses a partition id that is not a UUID', async () => {
    const json = JSON.parse((await run(TracesByMessage, 'traces:by-message', partitionId, 'tr-1', '-o', 'json')).stdout)
    expect(json.map((event: { data: unknown }) => event.data)).toEqual([{ step: 1 }, { step: 2 }])
    const bad = await run(TracesByMessage, 'traces:by-message', 'not-a-uuid', 'tr-1', '-o', 'table')
    expect(bad.code).toBe(1)
    expect(bad.stderr).toMatch(/^queenctl: .*partitionId/)
  })
})
