/**
 * `queenctl partition` (docs/cli.md, "Command reference") against a real in-process broker: list, describe, seek
 * proven by popping, and clear with its --yes and --dry-run rule, checked on the broker's counters.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import PartitionClear from '../../src/commands/partition/clear.js'
import PartitionDescribe from '../../src/commands/partition/describe.js'
import PartitionList from '../../src/commands/partition/list.js'
import PartitionSeek from '../../src/commands/partition/seek.js'
import { http, startTestBroker, type TestBroker } from '../support/broker.js'
import { runCommand } from '../support/run-command.js'

let broker: TestBroker

beforeAll(async () => {
  broker = await startTestBroker({ label: 'cli_partition' })
  const items = [
    ...[1, 2, 3].map((index) => ({ queue: 'pt-orders', partition: 'alpha', payload: { index } })),
    ...[1, 2].map((index) => ({ queue: 'pt-orders', partition: 'beta', payload: { index } })),
  ]
  expect((await http(broker, 'POST', '/api/v1/push', { items })).status).toBe(200)
})
afterAll(async () => {
  await broker.close()
})

const server = () => ['--server', broker.url]

/** Pops (without acking) up to 100 messages of one partition for `group`; returns how many came. */
async function popPartition(partition: string, group: string, autoAck = false): Promise<number> {
  const answer = await http(
    broker,
    'GET',
    `/api/v1/pop/queue/pt-orders/partition/${partition}?consumerGroup=${group}&batch=100&autoAck=${autoAck}`,
  )
  return Array.isArray(answer.body?.messages) ? answer.body.messages.length : 0
}

describe('queenctl partition list and describe', () => {
  it('lists the partitions of a queue', async () => {
    const result = await runCommand(PartitionList, 'partition:list', [...server(), 'pt-orders', '-o', 'table'])
    expect(result).toEqual({
      code: 0,
      stdout:
        'PARTITION  PENDING  PROCESSING  COMPLETED\nalpha      3        0           0\nbeta       2        0           0\n',
      stderr: '',
    })
    const rows = JSON.parse((await runCommand(PartitionList, 'partition:list', [...server(), 'pt-orders'])).stdout)
    expect(rows.map((row: { name: string }) => row.name)).toEqual(['alpha', 'beta'])
  })

  it('an unknown queue exits 1', async () => {
    const result = await runCommand(PartitionList, 'partition:list', [...server(), 'pt-none'])
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('Queue not found')
  })

  it('describes a partition with the positions of its groups', async () => {
    expect(await popPartition('beta', 'viewer', true)).toBe(2)
    const result = await runCommand(PartitionDescribe, 'partition:describe', [
      ...server(),
      'pt-orders',
      'beta',
      '-o',
      'table',
    ])
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/^queue: pt-orders\npartition: beta\n/)
    expect(result.stdout).toMatch(/groups:\n {2}viewer:\n {4}lag: 0\n/)
    const missing = await runCommand(PartitionDescribe, 'partition:describe', [...server(), 'pt-orders', 'gamma'])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain('has no partition "gamma"')
  })
})

describe('queenctl partition seek', () => {
  it('--to end skips the unconsumed messages of that partition only', async () => {
    // Leased but never acked: after the seek the group has nothing left on alpha.
    expect(await popPartition('alpha', 'skipper')).toBe(3)
    // Without a terminal and without --yes it goes ahead, as the Go queenctl does in scripts.
    const unasked = await runCommand(PartitionSeek, 'partition:seek', [
      ...server(),
      'pt-orders',
      'alpha',
      '--cg',
      'skipper',
      '-o',
      'table',
    ])
    expect(unasked.code, unasked.stderr).toBe(0)
    const result = await runCommand(PartitionSeek, 'partition:seek', [
      ...server(),
      'pt-orders',
      'alpha',
      '--cg',
      'skipper',
      '--to',
      'end',
      '--yes',
      '-o',
      'table',
    ])
    expect(result).toEqual({
      code: 0,
      stdout: '',
      stderr: 'moved group skipper on partition alpha of queue pt-orders to the head\n',
    })
    expect(await popPartition('alpha', 'skipper')).toBe(0)
    expect(await popPartition('beta', 'skipper')).toBe(2)
  })

  it('a time target is refused with a hint at cg seek; a bad time names --to', async () => {
    const time = await runCommand(PartitionSeek, 'partition:seek', [
      ...server(),
      'pt-orders',
      'alpha',
      '--cg',
      'g',
      '--to',
      '1h',
      '--yes',
    ])
    expect(time.code).toBe(1)
    expect(time.stderr).toContain('goes only to the head')
    expect(time.stderr).toContain('queenctl cg seek g pt-orders')
    const bad = await runCommand(PartitionSeek, 'partition:seek', [
      ...server(),
      'pt-orders',
      'alpha',
      '--cg',
      'g',
      '--to',
      'later',
      '--yes',
    ])
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain('--to: "later" is not a time')
  })
})

describe('queenctl partition clear', () => {
  const clear = (...argv: string[]) => runCommand(PartitionClear, 'partition:clear', [...server(), ...argv])
  /** The broker's total of each partition of the queue. */
  async function totals(queue: string): Promise<Record<string, number>> {
    const answer = await http(broker, 'GET', `/api/v1/resources/queues/${queue}`)
    return Object.fromEntries(
      answer.body.partitions.map((row: { name: string; stats: { total: number } }) => [row.name, row.stats.total]),
    )
  }

  beforeAll(async () => {
    const items = [
      ...[1, 2, 3].map((index) => ({ queue: 'pt-clear', partition: 'east', payload: { index } })),
      ...[1, 2].map((index) => ({ queue: 'pt-clear', partition: 'west', payload: { index } })),
    ]
    expect((await http(broker, 'POST', '/api/v1/push', { items })).status).toBe(200)
  })

  it('refuses without --yes off a terminal; --dry-run counts and changes nothing', async () => {
    const refused = await clear('pt-clear', 'east')
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('refusing to clear partition east of queue pt-clear without --yes')
    expect(refused.stderr).toContain('queenctl partition clear pt-clear east --yes')
    const dry = await clear('pt-clear', 'east', '--dry-run', '-o', 'table')
    expect(dry).toEqual({
      code: 0,
      stdout: '',
      stderr: 'would delete 3 message(s) of partition east of queue pt-clear\n',
    })
    expect(await totals('pt-clear')).toEqual({ east: 3, west: 2 })
  })

  it('--yes deletes the messages of that partition only; the partition stays', async () => {
    const result = await clear('pt-clear', 'east', '--yes', '-o', 'table')
    expect(result).toEqual({
      code: 0,
      stdout: '',
      stderr: 'cleared partition east of queue pt-clear: 3 message(s) deleted\n',
    })
    expect(await totals('pt-clear')).toEqual({ east: 0, west: 2 })
    expect((await clear('pt-clear', 'east', '--dry-run')).code).toBe(4)
  })

  it('a partition the queue does not have exits 1 naming it, and deletes nothing', async () => {
    const result = await clear('pt-clear', 'north', '--yes')
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('queue "pt-clear" has no partition "north"')
    expect(await totals('pt-clear')).toEqual({ east: 0, west: 2 })
  })
})
