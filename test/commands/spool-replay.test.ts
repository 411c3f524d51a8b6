/**
 * `queenctl spool replay` (docs/cli.md, "Command reference", docs/operations.md, "Spool replay") on a spool written by
 * a real broker: an in-process broker with its durability parts takes pushes under push-maintenance (answered
 * `buffered`, fsynced to its spool) and is stopped; the CLI then replays that directory into the broker's database.
 * Checked: the --yes and maintenance refusals, --dry-run, the rows stored (transaction ids, payloads, order), the spool
 * emptied, a repeat of the same segment storing nothing twice, and a live owner refused.
 */
import { spawn } from 'node:child_process'
import { cp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { hostname } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { scanSegment } from '../../src/broker/spool/record-format.js'
import { setMaintenanceDirect } from '../../src/cli/maintenance.js'
import SpoolReplay from '../../src/commands/spool/replay.js'
import { http, startTestBroker } from '../support/broker.js'
import { tempDir } from '../support/cli-harness.js'
import { createTestDatabase, databaseConnection, dropTestDatabase } from '../support/database.js'
import { startFaultProxy } from '../support/fault-proxy.js'
import { runCommand } from '../support/run-command.js'
import pg from 'pg'

let database: string
let db: pg.Pool
const dirs: string[] = []

beforeAll(async () => {
  database = await createTestDatabase('spool_replay')
  db = new pg.Pool({ ...databaseConnection(database), max: 2 })
})
afterAll(async () => {
  await db.end()
  await dropTestDatabase(database)
  for (const dir of dirs) await rm(dir, { recursive: true, force: true })
})

/** A spool directory as a stopped broker leaves it: `items` pushed under push-maintenance, all buffered. */
async function brokerSpool(items: object[]): Promise<string> {
  const dir = await tempDir('replay')
  dirs.push(dir)
  const broker = await startTestBroker({ database, durable: { FILE_BUFFER_DIR: dir } })
  try {
    expect((await http(broker, 'POST', '/api/v1/system/maintenance', { enabled: true })).status).toBe(200)
    const pushed = await http(broker, 'POST', '/api/v1/push', { items })
    expect(pushed.body.map((item: { status: string }) => item.status)).toEqual(items.map(() => 'buffered'))
  } finally {
    await broker.close()
  }
  return dir
}

const pushMaintenance = (enabled: boolean) =>
  setMaintenanceDirect(databaseConnection(database), 'push', enabled, { dryRun: false })

const replay = (dir: string, ...argv: string[]) =>
  runCommand(SpoolReplay, 'spool:replay', ['--dir', dir, '--pg-url', pgUrlOf(), ...argv])

function pgUrlOf(): string {
  const { user, password, host, port } = databaseConnection(database)
  return `postgres://${encodeURIComponent(user ?? '')}:${encodeURIComponent(String(password ?? ''))}@${host}:${port}/${database}`
}

/** Stored messages of a queue in partition order: transaction id and payload. */
async function stored(queue: string): Promise<{ tx: string; partition: string; n: number }[]> {
  const rows = await db.query<{ tx: string; partition: string; n: number }>(
    `SELECT m.transaction_id AS tx, p.name AS partition, (m.payload->>'n')::int AS n
       FROM queen.messages m JOIN queen.partitions p ON p.id = m.partition_id JOIN queen.queues q ON q.id = p.queue_id
      WHERE q.name = $1 ORDER BY p.name, m.position`,
    [queue],
  )
  return rows.rows
}

const segments = async (dir: string) => (await readdir(dir)).filter((name) => /\.(seg|open)$/.test(name))

const items = (queue: string, partition: string, from: number, count: number) =>
  Array.from({ length: count }, (_, index) => ({
    queue,
    partition,
    transactionId: `${queue}-${partition}-${from + index}`,
    payload: { n: from + index },
  }))

describe('queenctl spool replay', () => {
  it('refuses without --yes, while push-maintenance is on, and changes nothing; --dry-run lists the partitions', async () => {
    const dir = await brokerSpool([...items('rp.a', 'eu', 0, 3), ...items('rp.a', 'us', 0, 2)])
    const refused = await replay(dir, '-o', 'table')
    expect(refused).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'queenctl: refusing to replay the spool without --yes (stdin is not a terminal)\n' +
        `hint: run queenctl spool replay --dir "${dir}" --yes\n`,
    })
    const held = await replay(dir, '--yes', '-o', 'table')
    expect(held.code).toBe(1)
    expect(held.stderr).toBe(
      'queenctl: push-maintenance is on: replay would write while pushes are held back\n' +
        'hint: turn it off first (queenctl maintenance off, or --direct), or leave the spool to the brokers\n',
    )
    const dry = await replay(dir, '--dry-run', '-o', 'table')
    expect(dry.code, dry.stderr).toBe(0)
    expect(dry.stderr).toMatch(new RegExp(`^would replay 5 record\\(s\\) from 1 segment\\(s\\) of ${dir} into `))
    expect(dry.stdout.split('\n')[0]).toMatch(/^QUEUE\s+PARTITION\s+PENDING\s+OLDEST\s+NEWEST$/)
    expect(dry.stdout).toMatch(/\nrp\.a\s+eu\s+3\s+/)
    expect(dry.stdout).toMatch(/\nrp\.a\s+us\s+2\s+/)
    expect(await stored('rp.a')).toEqual([])
    expect(await segments(dir)).toHaveLength(1)
  })

  it('replays every record with its transaction id in partition order, empties the spool, then exits 4', async () => {
    const dir = await brokerSpool([...items('rp.b', 'eu', 0, 4), ...items('rp.c', 'Default', 0, 2)])
    await pushMaintenance(false)
    const result = await replay(dir, '--yes', '-o', 'table')
    expect(result).toEqual({ code: 0, stdout: 'replayed=6 quarantined=0 damaged=0\n', stderr: '' })
    expect(await stored('rp.b')).toEqual([0, 1, 2, 3].map((n) => ({ tx: `rp.b-eu-${n}`, partition: 'eu', n })))
    expect(await stored('rp.c')).toEqual([0, 1].map((n) => ({ tx: `rp.c-Default-${n}`, partition: 'Default', n })))
    expect(await segments(dir)).toEqual([])
    expect(await readdir(path.join(dir, 'failed'))).toEqual([])
    expect(await replay(dir, '--yes', '-o', 'table')).toEqual({ code: 4, stdout: '', stderr: '' })
  })

  it('stores nothing twice when the same segment is replayed again (a crash before its deletion)', async () => {
    await pushMaintenance(true)
    const dir = await brokerSpool(items('rp.d', 'eu', 0, 3))
    const copy = await tempDir('replay-copy')
    dirs.push(copy)
    await cp(dir, copy, { recursive: true })
    await pushMaintenance(false)
    expect((await replay(dir, '--yes', '-o', 'json')).code).toBe(0)
    await rm(dir, { recursive: true, force: true })
    await cp(copy, dir, { recursive: true })
    const again = await replay(dir, '--yes', '-o', 'json')
    expect(again.code, again.stderr).toBe(0)
    expect(JSON.parse(again.stdout)).toMatchObject({ dir, replayed: 3, quarantined: 0, remaining: 0 })
    expect((await stored('rp.d')).map((row) => row.tx)).toEqual(['rp.d-eu-0', 'rp.d-eu-1', 'rp.d-eu-2'])
  })

  it('quarantines a damaged record to failed/ and replays the records around it', async () => {
    await pushMaintenance(true)
    const dir = await brokerSpool(items('rp.e', 'eu', 0, 3))
    await pushMaintenance(false)
    const [segment] = await segments(dir)
    const file = path.join(dir, segment!)
    const bytes = await readFile(file)
    const second = scanSegment(bytes, 1 << 20).records[1]!
    // One byte of the second record's JSON changes: its CRC no longer matches.
    bytes[second.end - 3] = bytes[second.end - 3]! ^ 0x01
    await writeFile(file, bytes)
    const result = await replay(dir, '--yes', '-o', 'table')
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toBe('replayed=2 quarantined=0 damaged=1\n')
    expect(result.stderr).toBe(`warning: spool: damaged records quarantined (segment=${segment} ranges=1)\n`)
    expect((await stored('rp.e')).map((row) => row.tx)).toEqual(['rp.e-eu-0', 'rp.e-eu-2'])
    expect(await readdir(path.join(dir, 'failed'))).toHaveLength(1)
    expect(await segments(dir)).toEqual([])
  })

  it('exits 2 and keeps every record when PostgreSQL cannot be reached', async () => {
    await pushMaintenance(true)
    const dir = await brokerSpool(items('rp.f', 'eu', 0, 2))
    await pushMaintenance(false)
    const { host, port } = databaseConnection(database)
    const proxy = await startFaultProxy({ host: host ?? '127.0.0.1', port: Number(port ?? 5432) })
    try {
      proxy.setMode('refuse')
      const url = new URL(pgUrlOf())
      url.host = `127.0.0.1:${proxy.port}`
      const result = await runCommand(SpoolReplay, 'spool:replay', [
        '--dir',
        dir,
        '--pg-url',
        url.href,
        '--yes',
        '-o',
        'table',
      ])
      expect(result.code).toBe(2)
      expect(result.stderr.split('\n')[0]).toMatch(/^queenctl: cannot connect to PostgreSQL: /)
    } finally {
      await proxy.close()
    }
    expect(await segments(dir)).toHaveLength(1)
    expect(await stored('rp.f')).toEqual([])
    expect(await replay(dir, '--yes', '-o', 'table')).toMatchObject({
      code: 0,
      stdout: 'replayed=2 quarantined=0 damaged=0\n',
    })
  })

  it("refuses a running broker's directory and a directory that does not exist", async () => {
    const dir = await tempDir('replay-owned')
    dirs.push(dir)
    await mkdir(path.join(dir, 'failed'))
    await writeFile(path.join(dir, '0190a0b0-0000-7000-8000-000000000000.seg'), 'QSPOOL01')
    const owner = spawn('sleep', ['30'], { stdio: 'ignore' })
    try {
      await writeFile(
        path.join(dir, 'spool.lock'),
        JSON.stringify({ pid: owner.pid, serverId: 'queen-7', host: hostname() }),
      )
      const result = await replay(dir, '--yes', '-o', 'table')
      expect(result).toEqual({
        code: 1,
        stdout: '',
        stderr:
          `queenctl: spool ${dir} belongs to a running broker (queen-7, pid ${owner.pid}); it replays its spool itself\n` +
          'hint: stop that broker first, or let it replay: it does once PostgreSQL is reachable and push-maintenance is off\n',
      })
    } finally {
      owner.kill('SIGKILL')
    }
    const missing = await replay(path.join(dir, 'nope'), '--yes', '-o', 'table')
    expect(missing.code).toBe(1)
    expect(missing.stderr.split('\n')[0]).toBe(
      `queenctl: spool directory ${path.join(dir, 'nope')} does not exist or is not readable`,
    )
  })
})
