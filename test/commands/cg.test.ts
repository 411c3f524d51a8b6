/**
 * `queenctl cg`, `replay` and `lag` (docs/cli.md, "Command reference") against a real in-process broker: listing and
 * describing groups, the lagging pairs, seeks proven by popping, and delete with its --yes rule and its subscription
 * metadata (kept unless --metadata), checked on the broker's database.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import CgDelete from '../../src/commands/cg/delete.js'
import CgDescribe from '../../src/commands/cg/describe.js'
import CgLag from '../../src/commands/cg/lag.js'
import CgList from '../../src/commands/cg/list.js'
import CgRefreshStats from '../../src/commands/cg/refresh-stats.js'
import CgSeek from '../../src/commands/cg/seek.js'
import Lag from '../../src/commands/lag.js'
import Replay from '../../src/commands/replay.js'
import { http, startTestBroker, type TestBroker } from '../support/broker.js'
import { runCommand } from '../support/run-command.js'

let broker: TestBroker

beforeAll(async () => {
  broker = await startTestBroker({ label: 'cli_cg' })
})
afterAll(async () => {
  await broker.close()
})

async function push(queue: string, count: number, partition = 'Default'): Promise<void> {
  const items = Array.from({ length: count }, (_, index) => ({ queue, partition, payload: { index } }))
  expect((await http(broker, 'POST', '/api/v1/push', { items })).status).toBe(200)
}

/** Pops (and auto-acks) up to 100 messages of `queue` for `group`; returns how many came. */
async function drain(queue: string, group: string): Promise<number> {
  const answer = await http(
    broker,
    'GET',
    `/api/v1/pop/queue/${queue}?consumerGroup=${group}&batch=100&autoAck=true&partitions=10`,
  )
  return Array.isArray(answer.body?.messages) ? answer.body.messages.length : 0
}

const server = () => ['--server', broker.url]

describe('queenctl cg list and describe', () => {
  beforeAll(async () => {
    await push('cg-view', 5)
    expect(await drain('cg-view', 'readers')).toBe(5)
    await push('cg-view', 2)
  })

  it('lists the (group, queue) pairs with their lag', async () => {
    const result = await runCommand(CgList, 'cg:list', [...server(), '-o', 'table'])
    expect(result.code).toBe(0)
    expect(result.stdout.split('\n')[0]).toBe('GROUP    QUEUE    STATE   LAG  MAX LAG (S)')
    expect(result.stdout).toMatch(/\nreaders +cg-view +Stable +2 +\d+\n/)
    const rows = JSON.parse((await runCommand(CgList, 'cg:list', server())).stdout)
    expect(rows).toContainEqual(expect.objectContaining({ name: 'readers', queueName: 'cg-view', totalLag: 2 }))
  })

  it('describes a group per queue and partition', async () => {
    const result = await runCommand(CgDescribe, 'cg:describe', [...server(), 'readers', '-o', 'table'])
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(
      /^QUEUE +PARTITION +LAG +LAG \(S\) +CONSUMED +LEASED\ncg-view +Default +2 +\d+ +5 +no\n$/,
    )
  })

  it('an unknown group exits 1', async () => {
    const result = await runCommand(CgDescribe, 'cg:describe', [...server(), 'nobody'])
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('"nobody" has no position')
  })
})

describe('queenctl cg seek and replay', () => {
  it('seek --to beginning makes the group read everything again', async () => {
    await push('cg-seek', 4)
    expect(await drain('cg-seek', 'g1')).toBe(4)
    expect(await drain('cg-seek', 'g1')).toBe(0)
    const result = await runCommand(CgSeek, 'cg:seek', [
      ...server(),
      'g1',
      'cg-seek',
      '--to',
      'beginning',
      '--yes',
      '-o',
      'table',
    ])
    expect(result.code).toBe(0)
    expect(result.stderr).toBe('moved group g1 on queue cg-seek to 1970-01-01T00:00:00.000Z: 1 partition(s)\n')
    expect(await drain('cg-seek', 'g1')).toBe(4)
  })

  it('seek --to end skips what is unconsumed', async () => {
    await push('cg-end', 3)
    expect(await drain('cg-end', 'g2')).toBe(3)
    await push('cg-end', 2)
    const result = await runCommand(CgSeek, 'cg:seek', [...server(), 'g2', 'cg-end', '--to', 'end', '--yes'])
    expect(result.code).toBe(0)
    expect(JSON.parse(result.stdout)).toMatchObject({ seekToEnd: true, partitionsUpdated: 1 })
    expect(await drain('cg-end', 'g2')).toBe(0)
  })

  it('without --yes and no terminal seeks anyway, as the Go queenctl does in scripts', async () => {
    await push('cg-refuse', 2)
    expect(await drain('cg-refuse', 'g3')).toBe(2)
    const result = await runCommand(CgSeek, 'cg:seek', [...server(), 'g3', 'cg-refuse', '--to', 'beginning'])
    expect(result.code).toBe(0)
    expect(await drain('cg-refuse', 'g3')).toBe(2)
    const replay = await runCommand(Replay, 'replay', [...server(), 'cg-refuse', '--cg', 'g3', '--to', 'beginning'])
    expect(replay.code).toBe(0)
    expect(await drain('cg-refuse', 'g3')).toBe(2)
  })

  it('--dry-run sends nothing', async () => {
    await push('cg-dry', 2)
    expect(await drain('cg-dry', 'g4')).toBe(2)
    const result = await runCommand(CgSeek, 'cg:seek', [
      ...server(),
      'g4',
      'cg-dry',
      '--to',
      'beginning',
      '--dry-run',
      '-o',
      'table',
    ])
    expect(result).toEqual({
      code: 0,
      stdout: '',
      stderr: 'would move group g4 on queue cg-dry to 1970-01-01T00:00:00.000Z\n',
    })
    expect(await drain('cg-dry', 'g4')).toBe(0)
  })

  it('replay <queue> --cg --to is the same seek', async () => {
    await push('cg-replay', 3)
    expect(await drain('cg-replay', 'g5')).toBe(3)
    const result = await runCommand(Replay, 'replay', [...server(), 'cg-replay', '--cg', 'g5', '--to', '1h', '--yes'])
    expect(result.code).toBe(0)
    expect(JSON.parse(result.stdout)).toMatchObject({ consumerGroup: 'g5', queueName: 'cg-replay', seekToEnd: false })
    expect(await drain('cg-replay', 'g5')).toBe(3)
  })

  it('a bad --to exits 1 naming it; a missing --to is a usage error', async () => {
    const bad = await runCommand(CgSeek, 'cg:seek', [...server(), 'g1', 'cg-seek', '--to', 'yesterday-ish', '--yes'])
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain('--to: "yesterday-ish" is not a time')
    const missing = await runCommand(CgSeek, 'cg:seek', [...server(), 'g1', 'cg-seek', '--yes'])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain('Missing required flag to')
    const unknown = await runCommand(CgSeek, 'cg:seek', [...server(), 'g1', 'cg-seek', '--to', 'end', '--bogus'])
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain('bogus')
  })
})

describe('queenctl cg lag and lag', () => {
  it('lists the lagging partitions over --min-seconds', async () => {
    await push('cg-lag', 2)
    expect(await drain('cg-lag', 'slow')).toBe(2)
    await push('cg-lag', 3)
    // The messages are younger than an hour: cg lag's default threshold lists nothing of this queue.
    const none = JSON.parse((await runCommand(CgLag, 'cg:lag', server())).stdout)
    expect(none.filter((row: { queue_name: string }) => row.queue_name === 'cg-lag')).toEqual([])
    // lag without --min-seconds lists every group, as cg list does (the Go queenctl's lag).
    const groups = JSON.parse((await runCommand(Lag, 'lag', server())).stdout)
    expect(groups).toContainEqual(expect.objectContaining({ name: 'slow', queueName: 'cg-lag' }))
    const all = await runCommand(CgLag, 'cg:lag', [...server(), '--min-seconds', '0'])
    expect(all.code).toBe(0)
    expect(JSON.parse(all.stdout)).toContainEqual(
      expect.objectContaining({
        consumer_group: 'slow',
        queue_name: 'cg-lag',
        partition_name: 'Default',
        offset_lag: 3,
      }),
    )
    const bad = await runCommand(Lag, 'lag', [...server(), '--min-seconds', 'soon'])
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain('--min-seconds')
  })
})

describe('queenctl cg delete and refresh-stats', () => {
  it('delete without --yes refuses; with --yes the group starts afresh', async () => {
    await push('cg-del', 3)
    expect(await drain('cg-del', 'gone')).toBe(3)
    const refused = await runCommand(CgDelete, 'cg:delete', [...server(), 'gone'])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('--yes')
    expect(await drain('cg-del', 'gone')).toBe(0)
    const result = await runCommand(CgDelete, 'cg:delete', [
      ...server(),
      'gone',
      '--queue',
      'cg-del',
      '--yes',
      '-o',
      'table',
    ])
    expect(result.code).toBe(0)
    expect(result.stderr).toBe('deleted consumer group gone on queue cg-del: 1 partition position(s)\n')
    // A new group position with subscription mode all reads the queue from the start.
    expect(await drain('cg-del', 'gone')).toBe(3)
  })

  it('delete keeps the subscription metadata by default, as the Go queenctl does; --metadata deletes it', async () => {
    /** The group's subscription records on the broker's database. */
    const subscriptions = async (group: string) =>
      (await broker.db.query('SELECT mode FROM queen.subscriptions WHERE consumer_group = $1', [group])).rows
    /** Pops for `group`, auto-acked, without naming a subscription mode: the recorded one applies. */
    const popAgain = async (group: string) => {
      const answer = await http(
        broker,
        'GET',
        `/api/v1/pop/queue/cg-meta?consumerGroup=${group}&batch=100&autoAck=true`,
      )
      return Array.isArray(answer.body?.messages) ? answer.body.messages.length : 0
    }
    await push('cg-meta', 2)
    for (const group of ['kept', 'dropped']) {
      // First contact with subscription mode new: the two older messages are skipped.
      const first = await http(
        broker,
        'GET',
        `/api/v1/pop/queue/cg-meta?consumerGroup=${group}&batch=100&autoAck=true&subscriptionMode=new&wait=false`,
      )
      expect(first.body?.messages ?? []).toHaveLength(0)
    }
    await push('cg-meta', 1)
    expect(await popAgain('kept')).toBe(1)
    expect(await popAgain('dropped')).toBe(1)
    expect(await subscriptions('kept')).toEqual([{ mode: expect.any(String) }])

    const kept = await runCommand(CgDelete, 'cg:delete', [...server(), 'kept', '--queue', 'cg-meta', '--yes'])
    expect(kept.code, kept.stderr).toBe(0)
    expect(JSON.parse(kept.stdout)).toMatchObject({ consumerGroup: 'kept', metadataDeleted: false })
    expect(await subscriptions('kept')).toHaveLength(1)

    const dropped = await runCommand(CgDelete, 'cg:delete', [
      ...server(),
      'dropped',
      '--queue',
      'cg-meta',
      '--metadata',
      '--yes',
    ])
    expect(dropped.code, dropped.stderr).toBe(0)
    expect(JSON.parse(dropped.stdout)).toMatchObject({ consumerGroup: 'dropped', metadataDeleted: true })
    expect(await subscriptions('dropped')).toEqual([])
    // Without its record the group is new again and reads from the start (the default mode, all); with it kept, the
    // group still starts where it first subscribed.
    const afterKept = await popAgain('kept')
    const afterDropped = await popAgain('dropped')
    expect({ afterKept, afterDropped }).toEqual({ afterKept: 1, afterDropped: 3 })
  })

  it('refresh-stats recomputes the snapshot', async () => {
    const result = await runCommand(CgRefreshStats, 'cg:refresh-stats', [...server(), '-o', 'table'])
    expect(result.code).toBe(0)
    expect(result.stderr).toMatch(/statistics refreshed|refreshing the statistics already/)
  })
})
