/**
 * `queenctl tx` (docs/cli.md, "Data-plane commands", docs/http-api.md, "Transaction") against a real in-process broker:
 * a transaction document from a file (in this process) or stdin (the built CLI); what it applied, or did not, is read
 * back from the broker.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import Tx from '../../src/commands/tx.js'
import { http, startTestBroker, type TestBroker } from '../support/broker.js'
import { drainQueue, pushPayloads, runBuiltCli, type WireMessage } from '../support/data-plane.js'
import { runCommand } from '../support/run-command.js'

let broker: TestBroker
let dir: string

beforeAll(async () => {
  broker = await startTestBroker({ label: 'cli_tx' })
  dir = await mkdtemp('/tmp/queenctl-tx-test-')
})
afterAll(async () => {
  await broker.close()
  await rm(dir, { recursive: true, force: true })
})

const tx = (...argv: string[]) => runCommand(Tx, 'tx', ['--server', broker.url, ...argv])

let queues = 0
const freshQueue = () => `tx-${++queues}`
let files = 0

async function documentFile(document: unknown): Promise<string> {
  const file = path.join(dir, `tx-${++files}.json`)
  await writeFile(file, typeof document === 'string' ? document : JSON.stringify(document, null, 2))
  return file
}

/** Pushes one message and pops it (leased), as a consumer would before its transaction. */
async function leasedMessage(queue: string): Promise<WireMessage> {
  await pushPayloads(broker, queue, [{ step: 1 }])
  const popped = await http(broker, 'GET', `/api/v1/pop/queue/${queue}`)
  return popped.body.messages[0] as WireMessage
}

/** The queue-mode status of a message. */
async function statusOf(message: WireMessage): Promise<string> {
  const answer = await http(broker, 'GET', `/api/v1/messages/${message.partitionId}/${message.transactionId}`)
  return answer.body.status
}

describe('queenctl tx', () => {
  it('acks a leased message and pushes its successor atomically, requiring the lease', async () => {
    const [source, target] = [freshQueue(), freshQueue()]
    const message = await leasedMessage(source)
    const file = await documentFile({
      operations: [
        {
          type: 'ack',
          transactionId: message.transactionId,
          partitionId: message.partitionId,
          leaseId: message.leaseId,
        },
        { type: 'push', items: [{ queue: target, payload: { step: 2 }, transactionId: 'next-1' }] },
      ],
      requiredLeases: [message.leaseId],
    })
    const result = await tx('--file', file, '-o', 'table')
    expect(result).toEqual({ code: 0, stdout: 'transaction committed\n', stderr: '' })
    expect(await statusOf(message)).toBe('completed')
    expect((await drainQueue(broker, target)).map((m) => [m.transactionId, m.data])).toEqual([['next-1', { step: 2 }]])
  })

  it('prints the per-operation results under -o json', async () => {
    const target = freshQueue()
    const file = await documentFile({
      operations: [{ type: 'push', items: [{ queue: target, payload: 1, transactionId: 'j-1' }] }],
    })
    const result = await tx('-f', file, '-o', 'json')
    expect(result.code, result.stderr).toBe(0)
    expect(JSON.parse(result.stdout)).toEqual({
      transactionId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      success: true,
      results: [
        expect.objectContaining({ index: 0, type: 'push', success: true, transactionId: 'j-1', queueName: target }),
      ],
    })
  })

  it('applies nothing and exits 2 with the broker message when an operation fails', async () => {
    const [source, target] = [freshQueue(), freshQueue()]
    const message = await leasedMessage(source)
    const file = await documentFile({
      operations: [
        { type: 'push', items: [{ queue: target, payload: 'never' }] },
        { type: 'ack', transactionId: 'no-such-message', partitionId: message.partitionId },
      ],
    })
    const result = await tx('-f', file, '-o', 'table')
    expect(result.code).toBe(2)
    expect(result.stdout).toBe('')
    expect(result.stderr.split('\n')[0]).toBe('queenctl: ACK operation failed: Message not found')
    expect(await drainQueue(broker, target)).toEqual([])
  })

  it('refuses a transaction whose required lease is not live, exit 2', async () => {
    const target = freshQueue()
    const lease = '0190f3c2-1111-7000-8000-000000000002'
    const file = await documentFile({
      operations: [{ type: 'push', items: [{ queue: target, payload: 'x' }] }],
      requiredLeases: [lease],
    })
    const result = await tx('-f', file, '-o', 'table')
    expect(result.code).toBe(2)
    expect(result.stderr.split('\n')[0]).toBe(`queenctl: Lease expired or not found: ${lease}`)
    expect(await drainQueue(broker, target)).toEqual([])
  })

  it('shows the broker validation message unchanged, exit 1', async () => {
    const file = await documentFile({ operations: [] })
    expect(await tx('-f', file, '-o', 'table')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'queenctl: operations array cannot be empty\n',
    })
  })

  it('exits 1 for a missing file, malformed JSON, a document that is not an object, and no --file', async () => {
    const missing = path.join(dir, 'missing.json')
    expect(await tx('-f', missing)).toEqual({
      code: 1,
      stdout: '',
      stderr: `queenctl: file ${missing} does not exist\nhint: pass a JSON file to -f, or - for stdin\n`,
    })
    const malformed = await documentFile('{"operations": [')
    const bad = await tx('-f', malformed)
    expect(bad.code).toBe(1)
    expect(bad.stderr).toMatch(new RegExp(`^queenctl: ${malformed} is not valid JSON \\(`))
    const array = await documentFile([])
    const notObject = await tx('-f', array)
    expect(notObject.code).toBe(1)
    expect(notObject.stderr).toMatch(new RegExp(`^queenctl: ${array} is not a JSON object\n`))
    const none = await tx()
    expect(none.code).toBe(1)
    expect(none.stderr).toMatch(/^queenctl: .*\n\s*Missing required flag file\n/)
  })

  it('reads the document from stdin with --file - (built CLI)', async () => {
    const target = freshQueue()
    const file = await documentFile({
      operations: [{ type: 'push', items: [{ queue: target, payload: 'piped', transactionId: 'p-1' }] }],
    })
    const run = await runBuiltCli(['tx', '--file', '-', '--server', broker.url, '-o', 'table'], { stdinFile: file })
    expect(run).toMatchObject({ code: 0, stdout: 'transaction committed\n', stderr: '' })
    expect((await drainQueue(broker, target)).map((m) => m.data)).toEqual(['piped'])
  })
})
