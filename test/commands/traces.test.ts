/**
 * `queenctl namespace list` and `task list` (docs/cli.md, "Command reference") against a real in-process broker, in
 * this process with stdout, stderr and the exit code captured.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import NamespaceList from '../../src/commands/namespace/list.js'
import TaskList from '../../src/commands/task/list.js'
import { http, startTestBroker, type TestBroker } from '../support/broker.js'
import { runCommand } from '../support/run-command.js'

let broker: TestBroker

beforeAll(async () => {
  broker = await startTestBroker({ label: 'cli_resources' })
  // Given two queues in the namespace billing (tasks invoice and refund) with three messages between them.
  const invoices = await http(broker, 'POST', '/api/v1/configure', {
    queue: 'billing-invoices',
    namespace: 'billing',
    task: 'invoice',
  })
  expect(invoices.status).toBe(200)
  const refunds = await http(broker, 'POST', '/api/v1/configure', {
    queue: 'billing-refunds',
    namespace: 'billing',
    task: 'refund',
  })
  expect(refunds.status).toBe(200)
  const push = await http(broker, 'POST', '/api/v1/push', {
    items: [
      { queue: 'billing-invoices', payload: { n: 1 } },
      { queue: 'billing-invoices', payload: { n: 2 } },
      { queue: 'billing-refunds', payload: { n: 3 } },
    ],
  })
  expect(push.status).toBe(200)
})
afterAll(async () => {
  await broker.close()
})

describe('queenctl namespace list', () => {
  it('prints one row per namespace with its queues, partitions, messages and pending messages', async () => {
    const result = await runCommand(NamespaceList, 'namespace:list', ['--server', broker.url, '--output', 'table'])
    expect(result).toEqual({
      code: 0,
      stdout: 'NAMESPACE  QUEUES  PARTITIONS  MESSAGES  PENDING\nbilling    2       2           3         3\n',
      stderr: '',
    })
  })

  it('returns the rows as JSON under -o json', async () => {
    const result = await runCommand(NamespaceList, 'namespace:list', ['--server', broker.url, '-o', 'json'])
    expect(result.code).toBe(0)
    expect(result.stderr).toBe('')
    expect(JSON.parse(result.stdout)).toEqual([{ name: 'billing', queues: 2, partitions: 2, total: 3, pending: 3 }])
  })

  it('exits non-zero with a message naming the server when the broker is unreachable', async () => {
    const result = await runCommand(NamespaceList, 'namespace:list', ['--server', 'http://127.0.0.1:1'])
    expect(result.code).toBe(2)
    expect(result.stdout).toBe('')
    expect(result.stderr).toContain('127.0.0.1:1')
  })
})

describe('queenctl task list', () => {
  it('prints one row per task', async () => {
    const result = await runCommand(TaskList, 'task:list', ['--server', broker.url, '--output', 'table'])
    expect(result).toEqual({
      code: 0,
      stdout:
        'TASK     QUEUES  PARTITIONS  MESSAGES  PENDING\n' +
        'invoice  1       1           2         2\n' +
        'refund   1       1           1         1\n',
      stderr: '',
    })
  })
})
