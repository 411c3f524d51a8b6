/**
 * `queenctl queue` (docs/cli.md, "queenctl queue configure" and "Destructive verbs") against a real in-process broker:
 * configure's read-merge-write and its retention rule, list/describe/stats/depth, and the destructive delete and clear
 * with their --yes rule.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import QueueClear from '../../src/commands/queue/clear.js'
import QueueConfigure from '../../src/commands/queue/configure.js'
import QueueDelete from '../../src/commands/queue/delete.js'
import QueueDepth from '../../src/commands/queue/depth.js'
import QueueDescribe from '../../src/commands/queue/describe.js'
import QueueList from '../../src/commands/queue/list.js'
import QueueStats from '../../src/commands/queue/stats.js'
import { http, startTestBroker, type TestBroker } from '../support/broker.js'
import { runCommand } from '../support/run-command.js'

let broker: TestBroker
let dir: string

beforeAll(async () => {
  broker = await startTestBroker({ label: 'cli_queue' })
  dir = await mkdtemp(path.join(tmpdir(), 'queenctl-queue-'))
})
afterAll(async () => {
  await broker.close()
  await rm(dir, { recursive: true, force: true })
})

const configure = (...argv: string[]) =>
  runCommand(QueueConfigure, 'queue:configure', ['--server', broker.url, ...argv])

/** The broker's stored options of a queue. */
async function options(queue: string): Promise<Record<string, unknown>> {
  const answer = await http(broker, 'GET', `/api/v1/resources/queues/${queue}`)
  expect(answer.status).toBe(200)
  return answer.body.options
}

async function push(queue: string, count: number, partition = 'Default'): Promise<void> {
  const items = Array.from({ length: count }, (_, index) => ({ queue, partition, payload: { index } }))
  const answer = await http(broker, 'POST', '/api/v1/push', { items })
  expect(answer.status).toBe(200)
}

describe('queenctl queue configure', () => {
  it('creates a queue, then changes one option and keeps every other (read-merge-write)', async () => {
    const created = await configure('cfg-merge', '--lease-time', '10m', '--dedup-window', '600', '--retry-limit', '7')
    expect(created.code).toBe(0)
    expect(created.stderr).toContain('new queue "cfg-merge":')
    expect(created.stderr).toContain('leaseTime: (default) -> 600')
    expect(created.stderr).toContain('configured "cfg-merge"')
    expect(JSON.parse(created.stdout).configured).toBe(true)

    const changed = await configure('cfg-merge', '--retry-delay', '2s', '-o', 'table')
    expect(changed).toEqual({
      code: 0,
      stdout: '',
      stderr: 'changes to queue "cfg-merge":\n  retryDelay: 1000 -> 2000\nconfigured "cfg-merge"\n',
    })
    const stored = await options('cfg-merge')
    expect(stored).toMatchObject({ leaseTime: 600, dedupWindowSeconds: 600, retryLimit: 7, retryDelay: 2000 })
  })

  it('honours explicit zeros and false', async () => {
    await configure('cfg-zero', '--retry-limit', '4', '--dead-letter-queue')
    expect(await options('cfg-zero')).toMatchObject({ retryLimit: 4, deadLetterQueue: true })
    const result = await configure('cfg-zero', '--retry-limit', '0', '--no-dead-letter-queue')
    expect(result.code).toBe(0)
    expect(await options('cfg-zero')).toMatchObject({ retryLimit: 0, deadLetterQueue: false })
  })

  it('turns retentionEnabled on with a retention period and says so, unless --no-retention-enabled', async () => {
    const on = await configure('cfg-ret', '--retention', '7d', '-o', 'table')
    expect(on.code).toBe(0)
    expect(on.stderr).toContain('retentionEnabled turned on')
    expect(await options('cfg-ret')).toMatchObject({ retentionSeconds: 604_800, retentionEnabled: true })

    const off = await configure('cfg-ret2', '--completed-retention', '3600', '--no-retention-enabled', '-o', 'table')
    expect(off.code).toBe(0)
    expect(off.stderr).not.toContain('turned on')
    expect(await options('cfg-ret2')).toMatchObject({ completedRetentionSeconds: 3600, retentionEnabled: false })
  })

  it('--dry-run prints the diff and the body, sends nothing; exit 4 when nothing changes', async () => {
    await configure('cfg-dry', '--lease-time', '60')
    const dry = await configure('cfg-dry', '--lease-time', '90', '--dry-run', '-o', 'table')
    expect(dry.code).toBe(0)
    expect(dry.stderr).toBe('changes to queue "cfg-dry":\n  leaseTime: 60 -> 90\n')
    expect(JSON.parse(dry.stdout)).toMatchObject({
      queue: 'cfg-dry',
      options: { leaseTime: 90, dedupWindowSeconds: 3600 },
    })
    expect(await options('cfg-dry')).toMatchObject({ leaseTime: 60 })

    const same = await configure('cfg-dry', '--lease-time', '60', '--dry-run', '-o', 'table')
    expect(same).toEqual({ code: 4, stdout: '', stderr: 'no change to queue "cfg-dry"\n' })
  })

  it('--replace resets what was not given, and needs --yes without a terminal', async () => {
    await configure('cfg-replace', '--dedup-window', '60', '--retry-limit', '9')
    const refused = await configure('cfg-replace', '--replace', '--lease-time', '30')
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('--yes')
    expect(await options('cfg-replace')).toMatchObject({ dedupWindowSeconds: 60, retryLimit: 9 })

    const replaced = await configure('cfg-replace', '--replace', '--lease-time', '30', '--yes', '-o', 'table')
    expect(replaced.code).toBe(0)
    expect(await options('cfg-replace')).toMatchObject({ leaseTime: 30, dedupWindowSeconds: 3600, retryLimit: 3 })
  })

  it('reads an options file, flags win over it', async () => {
    const file = path.join(dir, 'options.yaml')
    await writeFile(file, 'leaseTime: 45\nretryLimit: 2\n')
    const result = await configure('cfg-file', '-f', file, '--retry-limit', '5', '-o', 'table')
    expect(result.code).toBe(0)
    expect(await options('cfg-file')).toMatchObject({ leaseTime: 45, retryLimit: 5 })
  })

  it('sets the namespace and task tags and keeps them on the next configure', async () => {
    await configure('cfg-tags', '--namespace', 'billing', '--task', 'invoices')
    await configure('cfg-tags', '--priority', '3')
    const answer = await http(broker, 'GET', '/api/v1/resources/queues/cfg-tags')
    expect(answer.body).toMatchObject({ namespace: 'billing', task: 'invoices', options: { priority: 3 } })
  })

  it('warns about the legacy keys the broker ignored', async () => {
    const file = path.join(dir, 'legacy.json')
    await writeFile(file, JSON.stringify({ ttl: 60, leaseTime: 20 }))
    const result = await configure('cfg-legacy', '-f', file, '-o', 'table')
    expect(result.code).toBe(0)
    expect(result.stderr).toContain('warning: the broker ignored legacy option(s) ttl')
    expect(await options('cfg-legacy')).toMatchObject({ leaseTime: 20 })
  })

  it('refuses bad input with exit 1 naming the flag or field, and changes nothing', async () => {
    const badDuration = await configure('cfg-bad', '--lease-time', 'soon')
    expect(badDuration.code).toBe(1)
    expect(badDuration.stderr).toContain('--lease-time')
    const badInteger = await configure('cfg-bad', '--retry-limit', '2.5')
    expect(badInteger.code).toBe(1)
    expect(badInteger.stderr).toContain('--retry-limit')
    const unknown = await configure('cfg-bad', '--frobnicate', '1')
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain('frobnicate')
    const missing = await configure('cfg-bad', '-f', path.join(dir, 'nope.yaml'))
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain('cannot read')
    const file = path.join(dir, 'unknown-key.yaml')
    await writeFile(file, 'leaseTim: 3\n')
    const badKey = await configure('cfg-bad', '-f', file)
    expect(badKey.code).toBe(1)
    expect(badKey.stderr).toContain('leaseTim: unknown queue option')
    expect((await http(broker, 'GET', '/api/v1/resources/queues/cfg-bad')).status).toBe(404)
  })

  it('passes the broker range errors through with exit 1', async () => {
    const result = await configure('cfg-range', '--lease-time', '0')
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('leaseTime')
  })
})

describe('queenctl queue list, describe, stats', () => {
  beforeAll(async () => {
    await configure('view-a', '--namespace', 'viewns')
    await push('view-a', 3)
    await push('view-a', 2, 'p2')
  })

  it('lists queues as a table, and prints the rows with -o json', async () => {
    const table = await runCommand(QueueList, 'queue:list', [
      '--server',
      broker.url,
      '--namespace',
      'viewns',
      '-o',
      'table',
    ])
    expect(table).toEqual({
      code: 0,
      stdout: 'NAME    PARTITIONS  PENDING  PROCESSING  TOTAL\nview-a  2           5        0           5\n',
      stderr: '',
    })
    const json = await runCommand(QueueList, 'queue:list', ['--server', broker.url, '--namespace', 'viewns'])
    const rows = JSON.parse(json.stdout)
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({ name: 'view-a', namespace: 'viewns', partitions: 2 })
  })

  it('describes a queue: key/value YAML then the partitions', async () => {
    const result = await runCommand(QueueDescribe, 'queue:describe', ['--server', broker.url, 'view-a', '-o', 'table'])
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/^name: view-a\nnamespace: viewns\n/)
    expect(result.stdout).toContain('  dedupWindowSeconds: 3600\n')
    expect(result.stdout).toMatch(/PARTITION +PENDING +PROCESSING +COMPLETED\nDefault +3 +0 +0\np2 +2 +0 +0\n$/)
  })

  it('describe of an unknown queue exits 1 with the broker message', async () => {
    const result = await runCommand(QueueDescribe, 'queue:describe', ['--server', broker.url, 'no-such-queue'])
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('Queue not found')
  })

  it('stats of one queue lists its partitions', async () => {
    const result = await runCommand(QueueStats, 'queue:stats', ['--server', broker.url, 'view-a'])
    expect(result.code).toBe(0)
    const rows = JSON.parse(result.stdout)
    expect(rows.map((row: { name: string }) => row.name).sort()).toEqual(['Default', 'p2'])
  })
})

describe('queenctl queue depth', () => {
  const depth = (...argv: string[]) => runCommand(QueueDepth, 'queue:depth', ['--server', broker.url, ...argv])

  it('prints a one-row summary, -o wide the rest, -o json the broker answer; an unknown queue is exit 1', async () => {
    await push('depth-cmd', 2, 'a')
    await push('depth-cmd', 3, 'b')
    const table = await depth('depth-cmd', '-o', 'table')
    expect(table.code, table.stderr).toBe(0)
    expect(table.stdout).toMatch(/^PENDING +PARTITIONS +PARTITIONS PENDING\n5 +2 +2\n$/)
    const wide = await depth('depth-cmd', '--group', 'nobody', '-o', 'wide')
    expect(wide.stdout).toMatch(
      /^PENDING +PARTITIONS +PARTITIONS PENDING +PROCESSING +READY +GROUP\n5 +2 +2 +0 +5 +nobody\n$/,
    )
    const json = await depth('depth-cmd', '-o', 'json')
    expect(JSON.parse(json.stdout)).toMatchObject({
      queue: 'depth-cmd',
      group: null,
      pending: 5,
      partitions: [
        { partition: 'a', pending: 2 },
        { partition: 'b', pending: 3 },
      ],
    })
    const missing = await depth('depth-none')
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain('queue "depth-none" not found')
  })
})

describe('queenctl queue delete and clear', () => {
  const del = (...argv: string[]) => runCommand(QueueDelete, 'queue:delete', ['--server', broker.url, ...argv])
  const clear = (...argv: string[]) => runCommand(QueueClear, 'queue:clear', ['--server', broker.url, ...argv])

  it('delete without --yes and no terminal exits 1 naming --yes, and keeps the queue', async () => {
    await configure('del-a')
    const result = await del('del-a')
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('without --yes')
    expect((await http(broker, 'GET', '/api/v1/resources/queues/del-a')).status).toBe(200)
  })

  it('delete --dry-run says what would go; an unknown queue is exit 4', async () => {
    await push('del-dry', 2)
    const dry = await del('del-dry', '--dry-run', '-o', 'table')
    expect(dry).toEqual({
      code: 0,
      stdout: '',
      stderr: 'would delete queue "del-dry": 1 partition(s), 2 message(s)\n',
    })
    expect((await http(broker, 'GET', '/api/v1/resources/queues/del-dry')).status).toBe(200)
    expect((await del('nothing-here', '--dry-run')).code).toBe(4)
  })

  it('delete --yes deletes the queue', async () => {
    await configure('del-b')
    const result = await del('del-b', '--yes', '-o', 'table')
    expect(result).toEqual({ code: 0, stdout: '', stderr: 'deleted queue "del-b"\n' })
    expect((await http(broker, 'GET', '/api/v1/resources/queues/del-b')).status).toBe(404)
  })

  it('clear --yes deletes the messages and keeps the queue and its options', async () => {
    await configure('clr-a', '--dedup-window', '120')
    await push('clr-a', 4)
    const refused = await clear('clr-a')
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('--yes')
    const result = await clear('clr-a', '--yes', '-o', 'table')
    expect(result).toEqual({ code: 0, stdout: '', stderr: 'cleared queue clr-a: 4 message(s) deleted\n' })
    const answer = await http(broker, 'GET', '/api/v1/resources/queues/clr-a')
    expect(answer.body.totals.total).toBe(0)
    expect(answer.body.options.dedupWindowSeconds).toBe(120)
    expect((await clear('clr-a', '--dry-run')).code).toBe(4)
  })
})
