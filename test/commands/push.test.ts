/**
 * `queenctl push` (docs/cli.md, "Data-plane commands") against a real in-process broker: files and --data in this
 * process with stdout, stderr and the exit code captured; stdin and the memory bound on a million lines through the
 * built CLI. What was pushed is read back from the broker.
 */
import { createWriteStream } from 'node:fs'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { once } from 'node:events'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import Push from '../../src/commands/push.js'
import { http, startTestBroker, type TestBroker } from '../support/broker.js'
import { drainQueue, ndjsonFile, runBuiltCli } from '../support/data-plane.js'
import { runCommand } from '../support/run-command.js'

let broker: TestBroker
let dir: string

beforeAll(async () => {
  broker = await startTestBroker({ label: 'cli_push' })
  dir = await mkdtemp('/tmp/queenctl-push-test-')
})
afterAll(async () => {
  await broker.close()
  await rm(dir, { recursive: true, force: true })
})

const push = (...argv: string[]) => runCommand(Push, 'push', ['--server', broker.url, ...argv])

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
let queues = 0
const freshQueue = () => `push-${++queues}`

describe('queenctl push', () => {
  it('pushes every line of --file in order and prints the per-status counts', async () => {
    const queue = freshQueue()
    const file = await ndjsonFile(dir, 'orders.ndjson', ['{"id":1}', '{"id":2}', '', '"text"', '[1,2]', '{"id":5}'])
    const result = await push(queue, '--file', file, '-o', 'table')
    expect(result).toEqual({ code: 0, stdout: 'queued=5 duplicate=0 failed=0\n', stderr: '' })
    const messages = await drainQueue(broker, queue)
    expect(messages.map((message) => message.data)).toEqual([{ id: 1 }, { id: 2 }, 'text', [1, 2], { id: 5 }])
    expect(messages.map((message) => message.partition)).toEqual(Array(5).fill('Default'))
    // Every item got a UUIDv7 from the CLI, so a retried request is deduplicated.
    for (const message of messages) expect(message.transactionId).toMatch(UUID_V7)
    expect(new Set(messages.map((message) => message.transactionId)).size).toBe(5)
  })

  it('prints the counts as text when stdout is piped, as the Go queenctl does, and the typed result with -o json', async () => {
    const file = await ndjsonFile(dir, 'two.ndjson', ['{"a":1}', '{"a":2}'])
    const piped = await push(freshQueue(), '-f', file)
    expect(piped).toEqual({ code: 0, stdout: 'queued=2 duplicate=0 failed=0\n', stderr: '' })
    const result = await push(freshQueue(), '-f', file, '-o', 'json')
    expect(result.code, result.stderr).toBe(0)
    expect(JSON.parse(result.stdout)).toEqual({
      queued: 2,
      duplicate: 0,
      buffered: 0,
      failed: 0,
      items: 2,
      failures: [],
    })
  })

  it('pushes --data into --partition with --transaction-id, and reports the same id again as a duplicate', async () => {
    const queue = freshQueue()
    const argv = [queue, '--data', '{"order": 42}', '--partition', 'eu', '--transaction-id', 'order-42', '-o', 'table']
    expect(await push(...argv)).toEqual({ code: 0, stdout: 'queued=1 duplicate=0 failed=0\n', stderr: '' })
    expect(await push(...argv)).toEqual({ code: 0, stdout: 'queued=0 duplicate=1 failed=0\n', stderr: '' })
    const messages = await drainQueue(broker, queue)
    expect(messages).toHaveLength(1)
    expect(messages[0]).toMatchObject({ partition: 'eu', transactionId: 'order-42', data: { order: 42 } })
  })

  it('gives --transaction-id to the first item only and --trace-id to every item', async () => {
    const queue = freshQueue()
    const traceId = '0190f3c2-7a1e-7cc1-9b55-3f1e2d4c5b6a'
    const file = await ndjsonFile(dir, 'trace.ndjson', ['1', '2'])
    const result = await push(queue, '-f', file, '--transaction-id', 'first', '--trace-id', traceId, '-o', 'table')
    expect(result.stdout).toBe('queued=2 duplicate=0 failed=0\n')
    const messages = await drainQueue(broker, queue)
    expect(messages.map((message) => message.transactionId)[0]).toBe('first')
    expect(messages[1]!.transactionId).toMatch(UUID_V7)
    expect(messages.map((message) => message.traceId)).toEqual([traceId, traceId])
  })

  it('routes each payload by --partition-key, falling back to --partition when the key is absent', async () => {
    const queue = freshQueue()
    const file = await ndjsonFile(dir, 'regions.ndjson', [
      '{"customer":{"region":"eu"},"n":1}',
      '{"customer":{"region":"us"},"n":2}',
      '{"customer":{},"n":3}',
      '{"customer":{"region":7},"n":4}',
    ])
    const result = await push(
      queue,
      '-f',
      file,
      '--partition-key',
      'customer.region',
      '--partition',
      'other',
      '-o',
      'table',
    )
    expect(result.stdout).toBe('queued=4 duplicate=0 failed=0\n')
    const messages = await drainQueue(broker, queue)
    const where = Object.fromEntries(messages.map((message) => [(message.data as { n: number }).n, message.partition]))
    expect(where).toEqual({ 1: 'eu', 2: 'us', 3: 'other', 4: '7' })
  })

  it('reads --wrapped lines (the spool inspect shape) and uses their queue when no queue is given', async () => {
    const [first, second] = [freshQueue(), freshQueue()]
    const traceId = '0190f3c2-7a1e-7cc1-9b55-3f1e2d4c5b6b'
    const spool = { segment: '00000001.open', offset: 0, acceptedAt: '2026-12-02T10:00:00.000Z' }
    const file = await ndjsonFile(dir, 'wrapped.ndjson', [
      JSON.stringify({ queue: first, partition: 'p1', transactionId: 'w-1', traceId, data: { n: 1 }, _spool: spool }),
      JSON.stringify({ queue: second, transactionId: 'w-2', traceId: null, data: 'two' }),
      JSON.stringify({ queue: first, partition: 'p1', data: null }),
    ])
    const result = await push('--wrapped', '-f', file, '-o', 'table')
    expect(result).toEqual({ code: 0, stdout: 'queued=3 duplicate=0 failed=0\n', stderr: '' })
    const inFirst = await drainQueue(broker, first)
    expect(
      inFirst.map(({ partition, transactionId, traceId: trace, data }) => ({ partition, transactionId, trace, data })),
    ).toEqual([
      { partition: 'p1', transactionId: 'w-1', trace: traceId, data: { n: 1 } },
      { partition: 'p1', transactionId: expect.stringMatching(UUID_V7), trace: null, data: null },
    ])
    const inSecond = await drainQueue(broker, second)
    expect(inSecond.map((message) => [message.partition, message.transactionId, message.data])).toEqual([
      ['Default', 'w-2', 'two'],
    ])
  })

  it('lets the queue argument win over the lines of --wrapped', async () => {
    const queue = freshQueue()
    const file = await ndjsonFile(dir, 'wrapped-arg.ndjson', [JSON.stringify({ queue: 'elsewhere', data: 1 })])
    expect((await push(queue, '--wrapped', '-f', file, '-o', 'table')).stdout).toBe(
      'queued=1 duplicate=0 failed=0\n',
    )
    expect((await drainQueue(broker, queue)).map((message) => message.data)).toEqual([1])
  })

  it('sends one request per --batch items', async () => {
    const queue = freshQueue()
    const file = await ndjsonFile(dir, 'five.ndjson', ['1', '2', '3', '4', '5'])
    const result = await push(queue, '-f', file, '--batch', '2', '-o', 'table', '--debug')
    expect(result.code).toBe(0)
    expect(result.stdout).toBe('queued=5 duplicate=0 failed=0\n')
    expect(result.stderr.match(/^http: POST \S+\/api\/v1\/push 200 \d+ms$/gm)).toHaveLength(3)
    expect((await drainQueue(broker, queue)).map((message) => message.data)).toEqual([1, 2, 3, 4, 5])
  })

  it('exits 4 and prints nothing on empty input', async () => {
    const file = await ndjsonFile(dir, 'empty.ndjson', ['', '   '])
    expect(await push(freshQueue(), '-f', file)).toEqual({ code: 4, stdout: '', stderr: '' })
  })

  it('stops at a malformed line with exit 1, naming the line, after pushing the lines before it', async () => {
    const queue = freshQueue()
    const file = await ndjsonFile(dir, 'bad.ndjson', ['{"n":1}', '{"n":2}', '{"n":3}', '{"n":', '{"n":5}'])
    const result = await push(queue, '-f', file, '--batch', '2', '-o', 'table')
    expect(result.code).toBe(1)
    expect(result.stdout).toBe('')
    expect(result.stderr).toMatch(
      new RegExp(
        `^queenctl: ${file} line 4 not valid JSON \\(.+\\); the 3 item\\(s\\) of lines 1-3 were pushed ` +
          '\\(queued=3 duplicate=0 failed=0\\)\nhint: fix line 4 and push the rest from it \\(tail -n \\+4\\)\n$',
      ),
    )
    expect((await drainQueue(broker, queue)).map((message) => message.data)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }])
  })

  it('says nothing was pushed when the first line is malformed', async () => {
    const queue = freshQueue()
    const file = await ndjsonFile(dir, 'bad-first.ndjson', ['nope', '1'])
    const result = await push(queue, '-f', file, '-o', 'table')
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/^queenctl: \S+ line 1 not valid JSON \(.+\); nothing was pushed\n/)
    expect(await drainQueue(broker, queue)).toEqual([])
  })

  it('refuses --wrapped lines that are not objects with data, or name no queue, naming the line', async () => {
    const noData = await ndjsonFile(dir, 'no-data.ndjson', ['{"queue":"q","payload":1}'])
    const first = await push('--wrapped', '-f', noData, '-o', 'table')
    expect(first.code).toBe(1)
    expect(first.stderr).toMatch(
      /^queenctl: \S+ line 1 has no "data" field, which --wrapped needs; nothing was pushed\n/,
    )
    const noQueue = await ndjsonFile(dir, 'no-queue.ndjson', ['{"data":1}'])
    const second = await push('--wrapped', '-f', noQueue, '-o', 'table')
    expect(second.code).toBe(1)
    expect(second.stderr).toMatch(/line 1 has no queue: pass the queue argument or give each line a "queue"/)
    const scalar = await ndjsonFile(dir, 'scalar.ndjson', ['5'])
    expect((await push('q', '--wrapped', '-f', scalar)).stderr).toMatch(/line 1 is not a JSON object/)
  })

  it('maps a broker validation error of an item to its line, exit 1', async () => {
    const queue = freshQueue()
    const file = await ndjsonFile(dir, 'bad-trace.ndjson', [
      '{"data":1}',
      '{"data":2}',
      '{"data":3,"traceId":"not-a-uuid"}',
    ])
    const result = await push(queue, '--wrapped', '-f', file, '--batch', '2', '-o', 'table')
    expect(result.code).toBe(1)
    expect(result.stdout).toBe('')
    expect(result.stderr.split('\n')[0]).toBe(
      `queenctl: items[0].traceId: must be a UUID (${file} line 3); the 2 item(s) of lines 1-2 were pushed (queued=2 duplicate=0 failed=0)`,
    )
    expect((await drainQueue(broker, queue)).map((message) => message.data)).toEqual([1, 2])
  })

  it('reports items the broker refused, exit 2', async () => {
    const queue = freshQueue()
    const configured = await http(broker, 'POST', '/api/v1/configure', { queue, options: { maxSize: 2 } })
    expect(configured.status).toBe(200)
    const file = await ndjsonFile(dir, 'full.ndjson', ['1', '2', '3'])
    const result = await push(queue, '-f', file, '-o', 'table')
    expect(result.code).toBe(2)
    expect(result.stdout).toBe('queued=2 duplicate=0 failed=1\n')
    expect(result.stderr).toMatch(
      new RegExp(
        `^warning: line 3 \\(transaction [0-9a-f-]{36}\\) failed: queue '${queue}' is full \\(maxSize 2\\)\n$`,
      ),
    )
    expect((await drainQueue(broker, queue)).map((message) => message.data)).toEqual([1, 2])
  })

  it('lists what --dry-run would push and sends nothing', async () => {
    const queue = 'dry'
    const file = await ndjsonFile(dir, 'dry.ndjson', ['{"r":"eu"}', '{"r":"us"}', '{"r":"eu"}'])
    const result = await push(queue, '-f', file, '--partition-key', 'r', '--dry-run', '-o', 'table')
    expect(result).toEqual({
      code: 0,
      stdout:
        'would push 3 item(s) in 1 request(s)\nQUEUE  PARTITION  ITEMS\ndry    eu         2\ndry    us         1\n',
      stderr: '',
    })
    expect(await drainQueue(broker, queue)).toEqual([])
    const json = await push(queue, '-f', file, '--dry-run', '--json')
    expect(JSON.parse(json.stdout)).toEqual({
      dryRun: true,
      items: 3,
      requests: 1,
      partitions: [{ queue, partition: 'Default', items: 3 }],
    })
  })

  it('refuses a line longer than 16 MiB, naming it', async () => {
    const queue = freshQueue()
    const file = path.join(dir, 'long.ndjson')
    await writeFile(file, `1\n"${'x'.repeat(16 * 1024 * 1024)}"\n3\n`)
    const result = await push(queue, '-f', file, '-o', 'table')
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(
      /^queenctl: \S+ line 2 is longer than 16777216 bytes \(at most 16 MiB per line\); the 1 item\(s\) of lines 1-1 were pushed/,
    )
    expect((await drainQueue(broker, queue)).map((message) => message.data)).toEqual([1])
  })

  it('exits 1 naming a file that does not exist', async () => {
    const missing = path.join(dir, 'missing.ndjson')
    const result = await push(freshQueue(), '-f', missing)
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: `queenctl: file ${missing} does not exist\nhint: pass an NDJSON file to -f, or - for stdin\n`,
    })
  })

  it('exits 1 on bad usage: no queue, unknown flag, --batch 0, --file with --data', async () => {
    const noQueue = await push('--data', '1')
    expect(noQueue.code).toBe(1)
    expect(noQueue.stderr).toBe(
      'queenctl: push needs a queue argument\nhint: queenctl push QUEUE --file FILE, or --wrapped lines that name their queue\n',
    )
    const unknown = await push('q', '--bogus')
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toMatch(/^queenctl: Nonexistent flag: --bogus\n/)
    const zero = await push('q', '--data', '1', '--batch', '0')
    expect(zero.code).toBe(1)
    expect(zero.stderr).toMatch(/^queenctl: --batch: Expected an integer greater than or equal to 1/)
    const both = await push('q', '--data', '1', '--file', 'x')
    expect(both.code).toBe(1)
    expect(both.stderr).toMatch(/--file=x cannot also be provided when using --data|cannot also be provided/)
  })

  it('exits 1 on a bad --timeout duration', async () => {
    const result = await push('q', '--data', '1', '--timeout', 'soon')
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/^queenctl: --timeout: soon is not a duration/)
  })
})

describe('queenctl push, built CLI', () => {
  it('reads stdin when no --file is given', async () => {
    const queue = freshQueue()
    const file = await ndjsonFile(dir, 'stdin.ndjson', ['{"via":"stdin"}', '2'])
    const run = await runBuiltCli(['push', queue, '--server', broker.url, '-o', 'table'], { stdinFile: file })
    expect(run).toMatchObject({ code: 0, stdout: 'queued=2 duplicate=0 failed=0\n', stderr: '' })
    expect((await drainQueue(broker, queue)).map((message) => message.data)).toEqual([{ via: 'stdin' }, 2])
  })

  it('reads --wrapped lines naming their queues from stdin, as spool inspect -o ndjson pipes them', async () => {
    const [first, second] = [freshQueue(), freshQueue()]
    const file = await ndjsonFile(dir, 'stdin-wrapped.ndjson', [
      JSON.stringify({ queue: first, partition: 'p', transactionId: 's-1', data: 1, _spool: { offset: 0 } }),
      JSON.stringify({ queue: second, transactionId: 's-2', data: 2, _spool: { offset: 40 } }),
    ])
    const run = await runBuiltCli(['push', '--wrapped', '--server', broker.url, '-o', 'table'], { stdinFile: file })
    expect(run).toMatchObject({ code: 0, stdout: 'queued=2 duplicate=0 failed=0\n', stderr: '' })
    expect((await drainQueue(broker, first)).map((m) => [m.partition, m.transactionId, m.data])).toEqual([
      ['p', 's-1', 1],
    ])
    expect((await drainQueue(broker, second)).map((m) => [m.transactionId, m.data])).toEqual([['s-2', 2]])
  })

  it('pushes a million lines from stdin with a flat memory footprint', { timeout: 900_000 }, async () => {
    const queue = freshQueue()
    const lines = 1_000_000
    const file = path.join(dir, 'million.ndjson')
    const stream = createWriteStream(file)
    for (let n = 0; n < lines; n += 10_000) {
      let chunk = ''
      for (let i = n; i < n + 10_000; i++) chunk += `{"n":${i}}\n`
      if (!stream.write(chunk)) await once(stream, 'drain')
    }
    stream.end()
    await once(stream, 'finish')
    // Peak RSS of the CLI process, written when it exits (kB on Linux).
    const rssFile = path.join(dir, 'maxrss')
    const preload = path.join(dir, 'maxrss.cjs')
    await writeFile(
      preload,
      `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(rssFile)}, String(process.resourceUsage().maxRSS)))\n`,
    )
    const run = await runBuiltCli(['push', queue, '--server', broker.url, '--batch', '1000', '-o', 'table'], {
      stdinFile: file,
      nodeArgs: ['--require', preload],
      timeoutMs: 900_000,
    })
    expect(run).toMatchObject({ code: 0, stdout: 'queued=1000000 duplicate=0 failed=0\n', stderr: '' })
    const maxRssMb = Number(await readFile(rssFile, 'utf8')) / 1024
    // The 14 MB input is never held at once: the CLI stays near its start-up footprint.
    expect(maxRssMb).toBeGreaterThan(10)
    expect(maxRssMb).toBeLessThan(200)
    const stored = await broker.db.query<{ count: string }>(
      'SELECT count(*) FROM queen.messages m JOIN queen.partitions p ON p.id = m.partition_id JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = $1',
      [queue],
    )
    expect(Number(stored.rows[0]!.count)).toBe(lines)
  })
})
