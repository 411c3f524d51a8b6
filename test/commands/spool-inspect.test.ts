/**
 * `queenctl spool inspect` (docs/cli.md, "queenctl spool inspect") on real spool directories written by the broker's
 * own spool (Spool.open + append, the quarantine writer), damaged by hand where a test needs damage; plus `queenctl
 * spool status` over HTTP.
 */
import { createHash } from 'node:crypto'
import { readdir, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises'
import path from 'node:path'
import pino from 'pino'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { quarantine } from '../../src/broker/spool/quarantine.js'
import { scanSegment, type SpoolRecord } from '../../src/broker/spool/record-format.js'
import { progressPath, Spool } from '../../src/broker/spool/spool.js'
import SpoolInspect from '../../src/commands/spool/inspect.js'
import SpoolStatus from '../../src/commands/spool/status.js'
import { startTestBroker, type TestBroker } from '../support/broker.js'
import { runCli, tempDir } from '../support/cli-harness.js'
import { runCommand } from '../support/run-command.js'

const log = pino({ enabled: false })
const MAX_RECORD = 32 * 1024 * 1024 + 65_536
const MINUTE = 60_000
const spools: Spool[] = []
const dirs: string[] = []

afterEach(async () => {
  for (const spool of spools.splice(0)) await spool.close().catch(() => undefined)
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true })
})

async function spoolDir(): Promise<string> {
  const dir = await tempDir('inspect')
  dirs.push(dir)
  return dir
}

/** The broker's spool on `dir`; the idle timer never seals during a test. */
async function openSpool(dir: string, eventsPerFile = 5): Promise<Spool> {
  const spool = await Spool.open(
    { dir, serverId: 'inspect-test', eventsPerFile, flushMs: 3_600_000, maxBytes: 0, maxRecordBytes: MAX_RECORD },
    log,
  )
  spools.push(spool)
  return spool
}

function records(queue: string, partition: string, from: number, count: number, acceptedAt: number): SpoolRecord[] {
  return Array.from({ length: count }, (_, index) => ({
    v: 1,
    tenant: '',
    queue,
    partition,
    transactionId: `${queue}-${from + index}`,
    traceId: null,
    producerSub: null,
    acceptedAt,
    requestId: 'inspect-test',
    encrypted: false,
    payload: { n: from + index, text: 'x'.repeat(80) },
  }))
}

/** Segment names of the spool directory: [sealed..., open...]. */
async function segments(dir: string): Promise<{ sealed: string[]; open: string[] }> {
  const names = (await readdir(dir)).sort()
  return { sealed: names.filter((name) => name.endsWith('.seg')), open: names.filter((name) => name.endsWith('.open')) }
}

/** Record offsets of a segment, from the broker's own reader. */
async function offsets(file: string): Promise<{ offset: number; end: number }[]> {
  return scanSegment(await readFile(file), MAX_RECORD).records.map(({ offset, end }) => ({ offset, end }))
}

/**
 * A spool as an outage leaves it: a sealed segment of 5 `orders/eu` records (accepted 10 minutes ago),
 * 2 of them already replayed (its `.progress`), and an open segment of 3 `payments/Default` records
 * (accepted 3 minutes ago). The spool stays open, like a running broker's.
 */
async function outageSpool(): Promise<{ dir: string; sealed: string; open: string; spool: Spool }> {
  const dir = await spoolDir()
  const spool = await openSpool(dir)
  await spool.append(records('orders', 'eu', 0, 5, Date.now() - 10 * MINUTE))
  await spool.append(records('payments', 'Default', 0, 3, Date.now() - 3 * MINUTE))
  const { sealed, open } = await segments(dir)
  expect(sealed).toHaveLength(1)
  expect(open).toHaveLength(1)
  const sealedOffsets = await offsets(path.join(dir, sealed[0]!))
  await writeFile(progressPath(path.join(dir, sealed[0]!)), String(sealedOffsets[1]!.end))
  return { dir, sealed: sealed[0]!, open: open[0]!, spool }
}

const inspect = (argv: string[], env: Record<string, string | undefined> = {}) =>
  runCommand(SpoolInspect, 'spool:inspect', argv, { env })

/** Rows of a table section, split on the two-space column gap. */
function rows(section: string): string[][] {
  return section
    .trimEnd()
    .split('\n')
    .map((line) => line.split(/ {2,}/))
}

function sections(stdout: string): string[] {
  return stdout.trimEnd().split('\n\n')
}

/** Every file under `dir` with its size, mtime and content hash. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const result: Record<string, string> = {}
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue
    const file = path.join(entry.parentPath, entry.name)
    const info = await stat(file)
    const hash = createHash('sha256')
      .update(await readFile(file))
      .digest('hex')
    result[path.relative(dir, file)] = `${info.size}:${info.mtimeMs}:${hash}`
  }
  return result
}

describe('queenctl spool inspect', () => {
  it('lists the segments with state, records, replay progress and ages, then pending records per partition', async () => {
    const { dir, sealed, open } = await outageSpool()
    const result = await inspect(['--dir', dir, '-o', 'table'])
    expect(result.code, result.stderr).toBe(0)
    const [segmentTable, partitionTable] = sections(result.stdout)
    const [header, ...segmentRows] = rows(segmentTable!)
    expect(header).toEqual(['SEGMENT', 'STATE', 'RECORDS', 'BYTES', 'OLDEST', 'NEWEST', 'REPLAYED'])
    expect(segmentRows).toHaveLength(2)
    expect(segmentRows[0]).toEqual([
      sealed,
      'sealed',
      '5',
      expect.stringMatching(/ B$| KiB$/),
      '10 minutes ago',
      '10 minutes ago',
      '2',
    ])
    expect(segmentRows[1]).toEqual([
      open,
      'open',
      '3',
      expect.stringMatching(/ B$| KiB$/),
      '3 minutes ago',
      '3 minutes ago',
      '-',
    ])
    expect(rows(partitionTable!)).toEqual([
      ['QUEUE', 'PARTITION', 'PENDING', 'OLDEST', 'NEWEST'],
      ['orders', 'eu', '3', '10 minutes ago', '10 minutes ago'],
      ['payments', 'Default', '3', '3 minutes ago', '3 minutes ago'],
    ])
    expect(result.stderr).toBe(
      `spool ${dir}: locked by inspect-test (pid ${process.pid} on ${(await import('node:os')).hostname()})\n`,
    )
  })

  it('omits the header rows with --no-headers', async () => {
    const { dir, sealed } = await outageSpool()
    const result = await inspect(['--dir', dir, '--no-headers', '-o', 'table'])
    const [segmentTable, partitionTable] = sections(result.stdout)
    expect(rows(segmentTable!)[0]![0]).toBe(sealed)
    expect(rows(partitionTable!).map((row) => row.slice(0, 3))).toEqual([
      ['orders', 'eu', '3'],
      ['payments', 'Default', '3'],
    ])
  })

  it('reports the same as a JSON document with file sizes, ISO times and totals', async () => {
    const { dir, sealed, open } = await outageSpool()
    const result = await inspect(['--dir', dir, '--json'])
    expect(result.code, result.stderr).toBe(0)
    const json = JSON.parse(result.stdout)
    expect(json.segments).toEqual([
      expect.objectContaining({ segment: sealed, state: 'sealed', records: 5, replayed: 2, damaged: 0, torn: false }),
      expect.objectContaining({ segment: open, state: 'open', records: 3, replayed: null, torn: false }),
    ])
    expect(json.segments[0].bytes).toBe((await stat(path.join(dir, sealed))).size)
    expect(json.segments[1].bytes).toBe((await stat(path.join(dir, open))).size)
    expect(json.segments[0].oldest).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    expect(json.totals).toEqual({
      segments: 2,
      pending: 6,
      replayed: 2,
      quarantined: 0,
      damaged: 0,
      torn: 0,
      bytes: json.segments[0].bytes + json.segments[1].bytes,
    })
    expect(json.owner).toMatchObject({ pid: process.pid, serverId: 'inspect-test', running: true })
    expect(json.records).toEqual([])
  })

  it('--records N decodes the first N records awaiting replay, payload shortened in the table', async () => {
    const { dir, sealed } = await outageSpool()
    const sealedOffsets = await offsets(path.join(dir, sealed))
    const result = await inspect(['--dir', dir, '--records', '2', '-o', 'table'])
    expect(result.code, result.stderr).toBe(0)
    const recordTable = rows(sections(result.stdout)[2]!)
    expect(recordTable[0]).toEqual(['SEGMENT', 'OFFSET', 'QUEUE', 'PARTITION', 'TRANSACTION', 'ACCEPTED', 'DATA'])
    expect(recordTable.slice(1).map((row) => row.slice(0, 6))).toEqual([
      [sealed, String(sealedOffsets[2]!.offset), 'orders', 'eu', 'orders-2', '10 minutes ago'],
      [sealed, String(sealedOffsets[3]!.offset), 'orders', 'eu', 'orders-3', '10 minutes ago'],
    ])
    expect(recordTable[1]![6]).toMatch(/^\{"n":2,"text":"x+…$/)
    expect(recordTable[1]![6]).toHaveLength(60)
  })

  it('-o ndjson prints every record awaiting replay, complete, in the shape push --wrapped reads', async () => {
    const { dir, sealed, open } = await outageSpool()
    const result = await inspect(['--dir', dir, '-o', 'ndjson'])
    expect(result.code, result.stderr).toBe(0)
    const lines = result.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(lines.map((line) => line.transactionId)).toEqual([
      'orders-2',
      'orders-3',
      'orders-4',
      'payments-0',
      'payments-1',
      'payments-2',
    ])
    const sealedOffsets = await offsets(path.join(dir, sealed))
    expect(lines[0]).toEqual({
      queue: 'orders',
      partition: 'eu',
      transactionId: 'orders-2',
      traceId: null,
      data: { n: 2, text: 'x'.repeat(80) },
      _spool: {
        segment: sealed,
        offset: sealedOffsets[2]!.offset,
        acceptedAt: expect.stringMatching(/Z$/),
        tenant: '',
        producerSub: null,
        encrypted: false,
      },
    })
    expect(lines[3]._spool.segment).toBe(open)
    const limited = await inspect(['--dir', dir, '-o', 'jsonl', '--records', '1'])
    expect(limited.stdout.trimEnd().split('\n')).toHaveLength(1)
  })

  it('--queue and --partition filter the partitions and the records', async () => {
    const { dir } = await outageSpool()
    const table = await inspect(['--dir', dir, '--queue', 'payments', '-o', 'table'])
    expect(rows(sections(table.stdout)[1]!)).toEqual([
      ['QUEUE', 'PARTITION', 'PENDING', 'OLDEST', 'NEWEST'],
      ['payments', 'Default', '3', '3 minutes ago', '3 minutes ago'],
    ])
    const lines = await inspect(['--dir', dir, '--queue', 'orders', '--partition', 'eu', '-o', 'ndjson'])
    expect(
      lines.stdout
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line).transactionId),
    ).toEqual(['orders-2', 'orders-3', 'orders-4'])
    const none = await inspect(['--dir', dir, '--partition', 'nowhere', '-o', 'ndjson'])
    expect(none).toMatchObject({ code: 0, stdout: '' })
  })

  it('shows encrypted payloads as <encrypted>', async () => {
    const dir = await spoolDir()
    const spool = await openSpool(dir)
    const [record] = records('secret', 'Default', 0, 1, Date.now())
    await spool.append([{ ...record!, encrypted: true, payload: { iv: 'aXY=', ct: 'Y3Q=', tag: 'dGFn', kid: 'k' } }])
    const table = await inspect(['--dir', dir, '--records', '1', '-o', 'table'])
    expect(rows(sections(table.stdout)[2]!)[1]!.at(-1)).toBe('<encrypted>')
    const line = JSON.parse((await inspect(['--dir', dir, '-o', 'ndjson'])).stdout)
    expect(line.data).toBe('<encrypted>')
    expect(line._spool.encrypted).toBe(true)
  })

  it('finds a flipped byte by its checksum: a warning without --verify, the damaged range with it', async () => {
    const { dir, sealed } = await outageSpool()
    const file = path.join(dir, sealed)
    const sealedOffsets = await offsets(file)
    const victim = sealedOffsets[3]!
    const bytes = await readFile(file)
    bytes[victim.offset + 8 + 4] = bytes[victim.offset + 8 + 4]! ^ 0x20
    await writeFile(file, bytes)

    const plain = await inspect(['--dir', dir, '-o', 'table'])
    expect(plain.code).toBe(0)
    expect(plain.stderr).toContain('warning: 1 damaged byte range(s); run with --verify to list them')
    expect(rows(sections(plain.stdout)[0]!)[1]!.slice(0, 3)).toEqual([sealed, 'sealed', '4'])

    const verified = await inspect(['--dir', dir, '--verify', '-o', 'table'])
    expect(verified.code).toBe(0)
    expect(verified.stderr).not.toContain('warning')
    expect(rows(sections(verified.stdout).at(-1)!)).toEqual([
      ['SEGMENT', 'KIND', 'FROM', 'TO', 'BYTES', 'REASON'],
      [
        sealed,
        'damaged',
        String(victim.offset),
        String(victim.end),
        String(victim.end - victim.offset),
        `corrupt: crc mismatch at offset ${victim.offset}`,
      ],
    ])
  })

  it('reports an unfinished last record of the .open segment as torn, not as damage', async () => {
    const { dir, open } = await outageSpool()
    const file = path.join(dir, open)
    const openOffsets = await offsets(file)
    const last = openOffsets.at(-1)!
    await truncate(file, last.offset + 20)

    const result = await inspect(['--dir', dir, '--verify', '-o', 'table'])
    expect(result.code).toBe(0)
    expect(result.stderr).not.toContain('warning')
    expect(result.stderr).toContain(`${open}: torn: unfinished last record at offset ${last.offset}`)
    const segmentRows = rows(sections(result.stdout)[0]!)
    expect(segmentRows[2]!.slice(0, 3)).toEqual([open, 'open', '2'])
    expect(rows(sections(result.stdout).at(-1)!)[1]!.slice(0, 4)).toEqual([
      open,
      'torn',
      String(last.offset),
      String(last.offset + 20),
    ])
    const json = JSON.parse((await inspect(['--dir', dir, '--json'])).stdout)
    expect(json.totals).toMatchObject({ torn: 1, damaged: 0 })
  })

  it('says every checksum is valid under --verify when nothing is damaged', async () => {
    const { dir } = await outageSpool()
    const result = await inspect(['--dir', dir, '--verify', '-o', 'table'])
    expect(result.stderr).toContain('verify: every checksum is valid (2 file(s))')
    expect(sections(result.stdout)).toHaveLength(2)
  })

  it('--failed lists the quarantine with reasons; with -o ndjson it prints only the quarantined records', async () => {
    const { dir, sealed } = await outageSpool()
    const [poison] = records('orders', 'eu', 90, 1, Date.now() - 10 * MINUTE)
    await quarantine(dir, path.join(dir, sealed), [
      {
        reason: 'replay failed: value too long for type character varying(255)',
        failedAt: new Date(Date.now() - 2 * MINUTE).toISOString(),
        attempts: 5,
        sourceSegment: sealed,
        offset: 1234,
        record: poison,
      },
      {
        reason: `corrupt: crc mismatch at offset 99 of ${sealed}`,
        failedAt: new Date(Date.now() - 2 * MINUTE).toISOString(),
        attempts: 0,
        sourceSegment: sealed,
        offset: 99,
        bytes: Buffer.from('damaged!').toString('base64'),
      },
    ])

    const table = await inspect(['--dir', dir, '--failed', '-o', 'table'])
    expect(table.code, table.stderr).toBe(0)
    const all = sections(table.stdout)
    expect(rows(all[0]!).at(-1)!.slice(0, 3)).toEqual([`failed/${sealed}`, 'quarantine', '2'])
    expect(rows(all[2]!)).toEqual([
      ['FILE', 'SOURCE', 'QUEUE', 'PARTITION', 'TRANSACTION', 'FAILED', 'ATTEMPTS', 'REASON'],
      [
        `failed/${sealed}`,
        `${sealed}@1234`,
        'orders',
        'eu',
        'orders-90',
        '2 minutes ago',
        '5',
        'replay failed: value too long for type character varying(255)',
      ],
      [
        `failed/${sealed}`,
        `${sealed}@99`,
        '-',
        '-',
        '-',
        '2 minutes ago',
        '0',
        `corrupt: crc mismatch at offset 99 of ${sealed}`,
      ],
    ])

    const ndjson = await inspect(['--dir', dir, '--failed', '-o', 'ndjson'])
    const lines = ndjson.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatchObject({
      queue: 'orders',
      partition: 'eu',
      transactionId: 'orders-90',
      data: poison!.payload,
      _spool: {
        segment: sealed,
        offset: 1234,
        quarantine: {
          file: `failed/${sealed}`,
          reason: 'replay failed: value too long for type character varying(255)',
          attempts: 5,
        },
      },
    })
    expect(ndjson.stderr).toContain('1 quarantined damaged byte range(s) hold no record and are not printed')
  })

  it('never modifies the directory, even while the broker holds it', async () => {
    const { dir, open } = await outageSpool()
    await truncate(path.join(dir, open), (await stat(path.join(dir, open))).size - 3)
    const before = await snapshot(dir)
    for (const argv of [['--verify', '--failed', '--records', '10', '-o', 'wide'], ['-o', 'ndjson'], ['--json']]) {
      const result = await inspect(['--dir', dir, ...argv])
      expect(result.code, result.stderr).toBe(0)
    }
    expect(await snapshot(dir)).toEqual(before)
  })

  it('reads FILE_BUFFER_DIR when --dir is not given', async () => {
    const { dir } = await outageSpool()
    const result = await inspect(['--json'], { FILE_BUFFER_DIR: dir })
    expect(result.code).toBe(0)
    expect(JSON.parse(result.stdout).dir).toBe(dir)
  })

  it('says so on stderr for an empty directory, and exits 1 for a missing one', async () => {
    const empty = await spoolDir()
    expect(await inspect(['--dir', empty, '-o', 'table'])).toEqual({
      code: 0,
      stdout: '',
      stderr: `no segments in ${empty}\n`,
    })
    const missing = await inspect(['--dir', path.join(empty, 'absent'), '-o', 'table'])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toBe(
      `queenctl: spool directory ${path.join(empty, 'absent')} does not exist\nhint: pass --dir or set FILE_BUFFER_DIR to the directory of the broker\n`,
    )
  })

  it('runs from the build through bin/run.js', async () => {
    const { dir } = await outageSpool()
    const result = await runCli(['spool', 'inspect', '--dir', dir, '--records', '3', '-o', 'ndjson'])
    expect(result.code, result.stderr).toBe(0)
    expect(
      result.stdout
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line).transactionId),
    ).toEqual(['orders-2', 'orders-3', 'orders-4'])
  })
})

describe('queenctl spool status', () => {
  let broker: TestBroker
  beforeAll(async () => {
    broker = await startTestBroker({ label: 'cli_spool_status' })
  })
  afterAll(async () => {
    await broker.close()
  })

  it("prints the broker's spool as key/value YAML and warns when it cannot take records", async () => {
    const result = await runCommand(SpoolStatus, 'spool:status', ['--server', broker.url, '-o', 'table'])
    expect(result.code).toBe(0)
    // The test broker runs without a spool.
    expect(result.stdout).toBe(
      'server: test-broker\nstate: unwritable\npending: 0\nbytes: 0 B\nsegments: 0\nquarantined: 0\ndatabase: reachable\n',
    )
    expect(result.stderr).toBe(
      'warning: the spool is unwritable: pushes are refused with 503 while PostgreSQL is unreachable\n',
    )
  })

  it('passes the broker answer through as JSON', async () => {
    const result = await runCommand(SpoolStatus, 'spool:status', ['--server', broker.url, '--json'])
    expect(JSON.parse(result.stdout)).toEqual({
      pending: 0,
      failed: 0,
      dbHealthy: true,
      worker: 'test-broker',
      bytes: 0,
      segments: 0,
      state: 'unwritable',
    })
  })
})
