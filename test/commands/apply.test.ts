/**
 * `queenctl apply -f` (docs/cli.md, "Command reference") against a real in-process broker: Queue documents merged like
 * queue configure, ConsumerGroup seeks proven by popping, --diff/--dry-run, exit 4, and errors that name
 * the document and the field.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import Apply from '../../src/commands/apply.js'
import QueueConfigure from '../../src/commands/queue/configure.js'
import { http, startTestBroker, type TestBroker } from '../support/broker.js'
import { runCommand } from '../support/run-command.js'
import { goQueueDocument } from '../support/go-manifest.js'

let broker: TestBroker
let dir: string
let fileCount = 0

beforeAll(async () => {
  broker = await startTestBroker({ label: 'cli_apply' })
  dir = await mkdtemp(path.join(tmpdir(), 'queenctl-apply-'))
})
afterAll(async () => {
  await broker.close()
  await rm(dir, { recursive: true, force: true })
})

async function file(text: string, ext = 'yaml'): Promise<string> {
  const target = path.join(dir, `doc-${++fileCount}.${ext}`)
  await writeFile(target, text)
  return target
}

const apply = (...argv: string[]) => runCommand(Apply, 'apply', ['--server', broker.url, ...argv])

async function queue(name: string): Promise<{ status: number; body: any }> {
  return http(broker, 'GET', `/api/v1/resources/queues/${name}`)
}

async function drain(name: string, group: string): Promise<number> {
  const answer = await http(broker, 'GET', `/api/v1/pop/queue/${name}?consumerGroup=${group}&batch=100&autoAck=true`)
  return Array.isArray(answer.body?.messages) ? answer.body.messages.length : 0
}

describe('queenctl apply', () => {
  it('applies several Queue documents, merging with the stored options', async () => {
    await runCommand(QueueConfigure, 'queue:configure', ['--server', broker.url, 'ap-a', '--dedup-window', '90'])
    const docs = await file(
      [
        'kind: Queue',
        'metadata:',
        '  name: ap-a',
        'spec:',
        '  leaseTime: 120',
        '---',
        'kind: Queue',
        'name: ap-b',
        'spec:',
        '  namespace: shop',
        '  retentionSeconds: 86400',
        '',
      ].join('\n'),
    )
    const result = await apply('-f', docs, '-o', 'table')
    expect(result).toEqual({
      code: 0,
      stdout: 'applied Queue "ap-a"\napplied Queue "ap-b"\n',
      stderr: 'Queue ap-a: configured\nQueue ap-b: configured\n',
    })
    expect((await queue('ap-a')).body.options).toMatchObject({ leaseTime: 120, dedupWindowSeconds: 90 })
    expect((await queue('ap-b')).body).toMatchObject({
      namespace: 'shop',
      options: { retentionSeconds: 86400, retentionEnabled: true },
    })
    // The same file again changes nothing, and succeeds as the Go queenctl's apply does (scripts under set -e).
    const again = await apply('-f', docs, '-o', 'table')
    expect(again).toEqual({
      code: 0,
      stdout: 'applied Queue "ap-a"\napplied Queue "ap-b"\n',
      stderr: 'nothing to change: every queue already has these options\n',
    })
  })

  it('--diff and --dry-run show the change and send nothing', async () => {
    await runCommand(QueueConfigure, 'queue:configure', ['--server', broker.url, 'ap-diff', '--lease-time', '60'])
    const docs = await file(JSON.stringify({ kind: 'Queue', name: 'ap-diff', spec: { leaseTime: 75 } }), 'json')
    const diff = await apply('-f', docs, '--diff', '-o', 'table')
    expect(diff).toEqual({
      code: 0,
      stdout: '',
      stderr: 'document 1: changes to queue "ap-diff":\n  leaseTime: 60 -> 75\n',
    })
    const dry = await apply('-f', docs, '--dry-run', '-o', 'table')
    expect(dry.code).toBe(0)
    expect(JSON.parse(dry.stdout)).toMatchObject({ queue: 'ap-diff', options: { leaseTime: 75 } })
    expect((await queue('ap-diff')).body.options.leaseTime).toBe(60)
    const same = await file(JSON.stringify({ kind: 'Queue', name: 'ap-diff', spec: { leaseTime: 60 } }), 'json')
    expect((await apply('-f', same, '--diff')).code).toBe(4)
  })

  it('a ConsumerGroup document seeks the group', async () => {
    const items = [1, 2, 3].map((index) => ({ queue: 'ap-cg', payload: { index } }))
    expect((await http(broker, 'POST', '/api/v1/push', { items })).status).toBe(200)
    expect(await drain('ap-cg', 'rewinders')).toBe(3)
    const docs = await file('kind: ConsumerGroup\nspec:\n  group: rewinders\n  queue: ap-cg\n  seekTo: beginning\n')
    const result = await apply('-f', docs, '-o', 'table')
    expect(result).toEqual({
      code: 0,
      stdout: 'applied ConsumerGroup "rewinders"\n',
      stderr: 'ConsumerGroup rewinders on ap-cg: sought on 1 partition(s)\n',
    })
    expect(await drain('ap-cg', 'rewinders')).toBe(3)
  })

  it('refuses malformed documents before sending anything, naming the document and field', async () => {
    const cases: [string, string][] = [
      [
        'kind: Queue\nname: ap-x\n---\nkind: Queue\nspec:\n  leaseTime: 5\n',
        'document 2 (Queue): metadata.name: is required',
      ],
      [
        'kind: Queue\nname: ap-x\nspec:\n  leaseTime: soon\n',
        'document 1 (Queue ap-x): spec.leaseTime: must be an integer',
      ],
      [
        'kind: Queue\nname: ap-x\nspec:\n  leaseTim: 5\n',
        'document 1 (Queue ap-x): spec.leaseTim: unknown queue option',
      ],
      ['kind: Topic\nname: ap-x\n', 'document 1: kind: "Topic" is not Queue or ConsumerGroup'],
      [
        'kind: ConsumerGroup\nspec:\n  group: g\n  queue: q\n  seekTo: whenever\n',
        'document 1 (ConsumerGroup): spec.seekTo: "whenever" is not a time',
      ],
      ['kind: ConsumerGroup\nspec:\n  group: g\n', 'document 1 (ConsumerGroup): spec.queue: is required'],
      ['kind: Queue\nname: [unclosed\n', 'document 1 of'],
      // The Go queenctl's flat form: an unknown key, or an unknown option inside config, names key and document.
      [
        'kind: Queue\nname: ap-x\nconfig:\n  leaseTim: 5\n',
        'document 1 (Queue ap-x): config.leaseTim: unknown queue option',
      ],
      ['name: ap-y\n---\nkind: Queue\nname: ap-x\nretries: 5\n', 'document 2 (Queue ap-x): unknown key retries'],
      ['kind: ConsumerGroup\nname: g\nqueue: q\nseekTo: end\n', 'document 1 (ConsumerGroup g): unknown key seekTo'],
      ['kind: Queue\nmetadata:\n  name: ap-x\n  labels: {}\n', 'document 1 (Queue ap-x): unknown key metadata.labels'],
      [
        'kind: Queue\nname: ap-x\nconfig:\n  leaseTime: "60"\n',
        'document 1 (Queue ap-x): config.leaseTime: must be an integer',
      ],
    ]
    for (const [text, message] of cases) {
      const result = await apply('-f', await file(text))
      expect(result.code, text).toBe(1)
      expect(result.stderr, text).toContain(message)
    }
    expect((await queue('ap-x')).status).toBe(404)
    expect((await queue('ap-y')).status).toBe(404)
  })

  it("reads the Go queenctl's flat manifests: the document is the queue's whole configuration", async () => {
    await runCommand(QueueConfigure, 'queue:configure', ['--server', broker.url, 'ap-go', '--dedup-window', '90'])
    const docs = await file(
      [
        ...goQueueDocument('ap-go'),
        '---',
        'name: ap-go-2',
        '---',
        'kind: ConsumerGroup',
        'name: analyzer',
        'queue: ap-go',
        'seek-to: beginning',
        '---',
        'kind: ConsumerGroup',
        'name: idle',
        'queue: ap-go',
        '',
      ].join('\n'),
    )
    const result = await apply('-f', docs)
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toBe('applied Queue "ap-go"\napplied Queue "ap-go-2"\napplied ConsumerGroup "analyzer"\n')
    expect(result.stderr).toContain('[skip] ConsumerGroup "idle" has nothing to apply (no seek-to)')
    const stored = (await queue('ap-go')).body
    expect(stored).toMatchObject({
      namespace: 'billing',
      task: 'ingest',
      options: { leaseTime: 60, retryLimit: 5, maxSize: 100000, deadLetterQueue: false },
    })
    // Not in the document, so back to its default (the merge of queue configure would have kept 90).
    expect(stored.options.dedupWindowSeconds).toBe(3600)
    expect((await queue('ap-go-2')).status).toBe(200)
  })

  it('a file that does not exist exits 1', async () => {
    const result = await apply('-f', path.join(dir, 'missing.yaml'))
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('cannot read')
    expect(result.stderr).toContain('ENOENT')
  })

  it('a broker refusal names the document', async () => {
    const docs = await file('kind: Queue\nname: ap-range\nspec:\n  leaseTime: 0\n')
    const result = await apply('-f', docs)
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('document 1 (Queue ap-range): ')
    expect(result.stderr).toContain('leaseTime')
  })
})
